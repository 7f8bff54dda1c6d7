import { observeCors } from './cors.js';
import {
  canonicalId,
  expectStatus,
  isUuid,
  prefixInOtherCase,
  type Exchange,
  type Finding,
} from './exchange.js';
import { refusesOptions } from './export-options.js';
import { observeExport } from './exports.js';
import { observeRepeat } from './headers.js';
import { observeOnImage, observeCreation, observePartPut } from './images.js';
import { observeInjected } from './injected.js';
import { isInternal, observeInternal } from './internal-paths.js';
import { observeNotFound } from './isolation.js';
import { listsPastMost } from './listed-parts.js';
import { learnClock } from './part-url-life.js';
import { observeModels } from './models.js';
import { judgeOverlapping } from './overlap.js';
import {
  forgedFrom,
  isControlPlane,
  knowKeys,
  observeControlPlane,
  organizationOf,
} from './organizations.js';
import { observePoll, observePredict } from './predictions.js';
import {
  mangledShareOfUrl,
  observeCreateShare,
  observeMangledPage,
  observeOnShare,
  observePage,
  observePreview,
  previewShareOfUrl,
  shareOfUrl,
} from './shares.js';
import { knownIds, newWorld, type Organization, type World } from './world.js';

/**
 * The oracle: an executable model of api-interface.md (and of the document's choices where it is
 * silent), fed every request and answer a check sees. For each answer it predicts what the
 * interface determines from the earlier ones (status, fields, counts, what a page shows) and
 * answers each disagreement; what it cannot determine it leaves alone, so a healthy target never
 * fails by it. Pure: records in, findings out, no I/O.
 */
const IMAGE_OPS = new Set([
  'getUpload',
  'getImage',
  'deleteUpload',
  'deleteImage',
  'completeUpload',
  'abortUpload',
]);
const EXPORT_OPS = new Set([
  'exportOverlayPng',
  'exportMeasurementsCsv',
  'exportRoisGeojson',
  'exportRoisZip',
]);
const SHARE_OPS = new Set(['getShare', 'revokeShare']);
const API_OPS = new Set([
  ...IMAGE_OPS,
  ...EXPORT_OPS,
  ...SHARE_OPS,
  'uploadImage',
  'createImage',
  'listModels',
  'createPrediction',
  'getPrediction',
  'createShare',
]);
const PATH_IDS = ['image_id', 'prediction_id', 'share_id', 'segmentation_id'];
const KNOWN_KEY =
  'Every request carries Authorization: Bearer <API_KEY> … A missing or invalid key yields 401 (a valid key is never answered 401)';
const SCHEME_CASE =
  "AUTH-07, assumed: the scheme is matched without case (RFC 9110 11.1; the document's bearerAuth, scheme: bearer), so a valid key under 'bearer ' or 'BEARER ' is taken as under 'Bearer '";

/**
 * The key parted from `Bearer` by more than one space, or by a tab: RFC 9110's 1*SP allows more
 * spaces, but a target that splits the header at its first space (FastAPI's HTTPBearer,
 * `get_authorization_scheme_param`) reads a key with a space before it, or no scheme, and answers
 * 401. The document says neither: the key's own answer and a 401 are both taken (a 401 changes
 * nothing).
 */
const looselyParted = (scheme: string): boolean => !/^bearer $/i.test(scheme);

const QUERY_KEY =
  "AUTH-09, assumed: a key is read from the Authorization header only (the interface names the header): a request without it, a valid key in its query (api_key, or RFC 6750 2.3's access_token), has no credentials";
const OTHER_SCHEME =
  'Every request carries Authorization: Bearer <API_KEY> … A missing or invalid key yields 401: a header of another scheme (Basic, Token), the key with no space after Bearer, the key alone or Bearer with no key carries none';
const ROTATED =
  "A missing or invalid key yields 401 (a valid key is never answered 401): revoking one of an organization's keys revokes that key alone, its other keys stay valid (mock-control.yaml, mockRevokeApiKey; rotation is add a key, move the clients, revoke the old one)";
const REVOKED =
  'A missing or invalid key yields 401: a key revoked is invalid from the next request that presents it on (mock-control.yaml, mockRevokeApiKey; rotation is add a key, move the clients, revoke the old one)';
const UPPER_CASE =
  'the path id was sent in upper case or in its urn:uuid: form: ids are UUIDs compared case-insensitively, an urn:uuid: prefix accepted (document, x-http-conventions.ids)';

const MISSING = "404 | resource missing or outside the caller's organization";

/**
 * An id no answer the oracle saw handed out, asked for by an organization made here (one only this
 * check reaches, whose every creation the oracle saw answered): nobody's, so not found. An export
 * asked with options the document refuses may be refused for them first.
 */
function nobodys(org: Organization, x: Exchange): Finding[] {
  if (!org.counters || org.opaque || org.pending > 0) return [];
  const findings: Finding[] = [];
  const options = EXPORT_OPS.has(x.operationId) && refusesOptions(x, new URL(x.url));
  expectStatus(findings, MISSING, x, options ? [404, 422] : [404]);
  return findings;
}

const OTHER_KIND =
  "404 | resource missing or outside the caller's organization: an id handed out for a resource of another kind (an image's, a segmentation's, a share's id asked as a prediction's, and so on) names no resource of the route's kind";

/**
 * An id the oracle saw handed out for a resource of another kind: every id is a UUID of its own
 * (a new id is none seen before, which the creations are held to), so none of this kind has it,
 * whoever the caller and whatever the model does not know of the organization. An export asked
 * with options the document refuses may be refused for them first.
 */
function ofOtherKind(x: Exchange): Finding[] {
  const findings: Finding[] = [];
  const options = EXPORT_OPS.has(x.operationId) && refusesOptions(x, new URL(x.url));
  expectStatus(findings, OTHER_KIND, x, options ? [404, 422] : [404]);
  return findings;
}

/** Whether a URL's query carries a key the oracle knows. */
const keyInQuery = (world: World, url: string): boolean =>
  [...new URL(url).searchParams.values()].some((value) => world.keys.has(value));

/** Why a request carries no valid key, as the interface (or the suite's reading, AUTH-09) says. */
function withoutKey(world: World, x: Exchange): string {
  if (x.otherScheme) return OTHER_SCHEME;
  if (typeof x.key === 'string' && world.revokedKeys?.has(x.key)) return REVOKED;
  if (x.key === null && keyInQuery(world, x.url)) return QUERY_KEY;
  return 'Every request carries Authorization: Bearer <API_KEY> … A missing or invalid key yields 401 (a key with its case or one character changed, or characters added or cut, is invalid)';
}

export class Oracle {
  readonly world: World = newWorld();

  /** The target's keys, by role: each role is an organization of its own. */
  knowKeys(keys: Record<string, string | undefined>): void {
    knowKeys(this.world, keys);
  }

  /** The target's root (`https://gw/cellseg`): the routes the model reads by path start under its path. */
  knowBase(baseUrl: string): void {
    this.world.basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  }

  /** A request with `key` is on its way; answers the function to call once it has its answer (or none). */
  sending(key: string | null | undefined): () => void {
    const org = organizationOf(this.world, key);
    if (org) org.pending++;
    // looked up again: requests judged at once may have put the world back from a copy meanwhile
    return () => {
      const now = organizationOf(this.world, key);
      if (now) now.pending--;
    };
  }

  /** Answers of requests sent at once, held until the last of them is in (`hold`, `release`). */
  private held?: Exchange[];

  /** Requests are about to be sent at once: their answers are judged together, at `release`. */
  hold(): void {
    this.held ??= [];
  }

  /** The held answers, judged as requests the target may have taken in any order (overlap.ts). */
  release(): Finding[] {
    const held = this.held ?? [];
    this.held = undefined;
    return judgeOverlapping(this.world, held, (x) => this.observe(x));
  }

  observe(x: Exchange): Finding[] {
    if (this.held) return (this.held.push(x), []);
    return [...observeCors(this.world, x), ...this.observeOnce(x)];
  }

  private observeOnce(x: Exchange): Finding[] {
    const world = this.world;
    if (isControlPlane(x)) {
      learnClock(world, x);
      return observeControlPlane(world, x);
    }
    const org = organizationOf(world, x.key);
    if (x.injected) {
      if (org) org.opaque = true;
      return observeInjected(x);
    }
    // a key the oracle knows, forged from none: a valid one (its organization's own)
    if (org && isInternal(world, x.url)) return observeInternal(x);
    if (!API_OPS.has(x.operationId) && !x.url.includes('/share/')) {
      return x.method === 'PUT' ? observePartPut(world, x) : [];
    }
    const repeated = org?.opaque ? [] : observeRepeat(world, x);
    return [...repeated, ...this.judge(world, org, x)];
  }

  private judge(world: World, org: Organization | undefined, x: Exchange): Finding[] {
    if (!API_OPS.has(x.operationId)) {
      const preview = x.method === 'GET' ? previewShareOfUrl(world, x.url) : undefined;
      if (preview)
        return world.organizations.get(preview.org)?.opaque ? [] : observePreview(world, x, preview);
      const share = x.method === 'GET' ? shareOfUrl(world, x.url.split('?')[0]) : undefined;
      if (share) return world.organizations.get(share.org)?.opaque ? [] : observePage(world, x, share);
      const mangled = x.method === 'GET' ? mangledShareOfUrl(world, x.url.split('?')[0]) : undefined;
      if (mangled) return observeMangledPage(x, mangled);
      return x.method === 'PUT' ? observePartPut(world, x) : [];
    }
    const findings: Finding[] = [];
    const revoked = typeof x.key === 'string' && (world.revokedKeys?.has(x.key) ?? false);
    if (x.key === null || x.otherScheme || revoked || forgedFrom(world, x.key) !== undefined) {
      expectStatus(findings, withoutKey(world, x), x, [401]);
      return findings;
    }
    if (!org || org.opaque) return findings;
    // a key the target gave the suite (or made in the check) is valid: never 401, whatever case
    // the scheme was written in (an HTTP authentication scheme is matched without case)
    if (x.status === 401 && x.scheme !== undefined && looselyParted(x.scheme)) return findings;
    if (x.status === 401)
      return [
        {
          sentence: x.scheme ? SCHEME_CASE : org.keyRevoked ? ROTATED : KNOWN_KEY,
          subject: `${x.operationId} status`,
          predicted: 'not 401',
          received: '401',
        },
      ];
    const ids = PATH_IDS.filter((p) => x.params[p] !== undefined);
    if (ids.some((p) => prefixInOtherCase(x.params[p]))) return findings;
    if (ids.some((p) => !isUuid(x.params[p]))) {
      expectStatus(
        findings,
        '422: a path or body id is not a valid UUID (rejected before reaching storage)',
        x,
        [422],
      );
      return findings;
    }
    // ids are compared case-insensitively, an urn:uuid: prefix accepted (document,
    // x-http-conventions.ids): an id in upper case or in its urn form names the resource its
    // canonical form names, and is judged as that one
    const lowered = Object.fromEntries(
      Object.entries(x.params).map(([k, v]) => [k, PATH_IDS.includes(k) ? canonicalId(v) : v.toLowerCase()]),
    );
    const judged = this.dispatch(world, org, { ...x, params: lowered });
    if (ids.every((p) => x.params[p] === lowered[p])) return judged;
    return judged.map((f) => ({ ...f, sentence: `${f.sentence}; ${UPPER_CASE}` }));
  }

  private dispatch(world: World, org: Organization, x: Exchange): Finding[] {
    const op = x.operationId;
    const id = Object.values(x.params)[0];
    const known = (owner: { org: string } | undefined, gone: boolean, judge: () => Finding[]): Finding[] => {
      if (!owner && knownIds(world).has(id))
        return [...observeNotFound(world, x, 'missing', id), ...ofOtherKind(x)];
      if (!owner) return [...observeNotFound(world, x, 'missing', id), ...nobodys(org, x)];
      const findings = judge();
      if (owner.org !== org.ref && !gone) findings.push(...observeNotFound(world, x, 'foreign', id));
      return findings;
    };
    if (op === 'completeUpload' && listsPastMost(x.sent)) return [];
    if (op === 'uploadImage' || op === 'createImage') return observeCreation(world, org, x);
    if (op === 'listModels') return observeModels(world, org, x);
    if (op === 'createPrediction') return observePredict(world, org, x);
    if (op === 'createShare') return observeCreateShare(world, org, x);
    if (IMAGE_OPS.has(op)) {
      const image = world.images.get(id);
      return known(image, image?.deleted ?? false, () => observeOnImage(world, org, x, image!));
    }
    if (op === 'getPrediction') {
      const prediction = world.predictions.get(id);
      const gone = prediction ? (world.images.get(prediction.imageId)?.deleted ?? false) : false;
      return known(prediction, gone, () => observePoll(world, org, x, prediction!));
    }
    if (EXPORT_OPS.has(op)) {
      const segmentation = world.segmentations.get(id);
      const gone = segmentation ? (world.images.get(segmentation.imageId)?.deleted ?? false) : false;
      return known(segmentation, gone, () => observeExport(world, org, x, segmentation!));
    }
    if (SHARE_OPS.has(op)) {
      const share = world.shares.get(id);
      const segmentation = share && world.segmentations.get(share.segmentationId);
      const gone = segmentation ? (world.images.get(segmentation.imageId)?.deleted ?? false) : false;
      return known(share, gone, () => observeOnShare(world, org, x, share!));
    }
    return [];
  }
}
