import {
  canonicalId,
  CLOCK_SKEW_MS,
  compare,
  expectStatus,
  isObject,
  type Exchange,
  type Finding,
  type Json,
} from './exchange.js';
import {
  knownIds,
  segmentationGone,
  shareGone,
  type Organization,
  type ShareRecord,
  type World,
} from './world.js';

/**
 * Shares: one live link per segmentation, repeated POST answering it again, revocation, view
 * counts, and what the public page shows (the prediction's count) or that it no longer opens.
 */
const S = {
  completed:
    'POST /shares for a completed segmentation … 404 (segmentation outside the organization, or still being written)',
  same: 'Idempotent: a segmentation has at most one live link; repeating returns the same share',
  fresh: 'revoked → POST /shares for the same segmentation → new live share; a new link is created',
  fields: 'Share: segmentation_id; access always anyone_with_link; role always viewer',
  views: 'view_count: times the link was opened',
  lastView: 'last_viewed_at: the last time the link was opened (null before any)',
  lastViewMoves:
    'last_viewed_at: the last time the link was opened: an open sent over a second after an earlier one was answered is a later time, even to the second',
  revoked:
    'DELETE /shares/{share_id} → revoked (revoked_at set); share still readable via GET /shares/{share_id}',
  live: 'live (revoked_at null)',
  closed: 'a revoked link no longer opens',
  gone: 'DELETE /upload/{image_id} … the shares of those: afterwards GET /shares/{id} answers 404 and their public share pages no longer open',
  page: 'anyone with url can view the image, cell outlines and counts without an account',
  keyOnPage:
    'Public page: anyone with url can view … without an account; nothing on it edits the result; downloading from it asks the visitor to sign in (so nothing on it carries a credential: a key there downloads, and acts, as the organization for anyone holding the link)',
  pageWithKey:
    "AUTH-08, assumed: a share page opened with a credential it does not need (a key nobody has, the owner's) answers as without one",
  foreign: 'A resource of another organization is answered as not found (404)',
  otherKind:
    "POST /shares 404 | resource missing: an id handed out for another kind of resource (an image's, a prediction's, a share's) names no segmentation",
  preview:
    'GET /share/{share_token}/image.png: the preview image shown on the share page (live tokens only) (document, assumed)',
  previewClosed:
    'a revoked link no longer opens: nor does the preview image of its page (live tokens only, document)',
  previewGone:
    "DELETE … Permanently deletes the image and derived storage (converted TIFF/PNG, thumbnail …): the preview image of its shares' pages (live tokens only, document) no longer opens",
  mangled:
    'ShareToken: the opaque token at the end of a share url. Anything else (a mangled or truncated link) shows the "no longer available" page (document)',
};

export function observeCreateShare(world: World, org: Organization, x: Exchange): Finding[] {
  const findings: Finding[] = [];
  const asked = isObject(x.sent) ? x.sent.segmentation_id : undefined;
  // ids are compared case-insensitively, an urn:uuid: prefix accepted (document,
  // x-http-conventions.ids): one in upper case or in urn form names the segmentation its
  // canonical form names
  const segmentation = typeof asked === 'string' ? world.segmentations.get(canonicalId(asked)) : undefined;
  // an id handed out for another kind of resource names no segmentation: every id is one of its own
  if (!segmentation && typeof asked === 'string' && knownIds(world).has(canonicalId(asked)))
    expectStatus(findings, S.otherKind, x, [404]);
  if (!segmentation) return findings;
  if (segmentationGone(world, segmentation) || segmentation.org !== org.ref)
    return (expectStatus(findings, segmentation.org !== org.ref ? S.foreign : S.gone, x, [404]), findings);
  if (!expectStatus(findings, S.completed, x, [200]) || !isObject(x.body) || typeof x.body.id !== 'string')
    return findings;
  const live = [...world.shares.values()].find((s) => s.segmentationId === segmentation.id && !s.revoked);
  const body = x.body;
  const id = x.body.id;
  if (live) {
    compare(findings, S.same, 'createShare again: id', live.id, body.id);
    compare(findings, S.same, 'createShare again: url', live.url, body.url ?? null);
    readShare(findings, live, body, 'createShare again');
    return findings;
  }
  if (knownIds(world).has(id)) compare(findings, S.fresh, 'createShare: id', 'an id not seen before', id);
  const earlierUrls = [...world.shares.values()]
    .filter((s) => s.segmentationId === segmentation.id)
    .map((s) => s.url);
  if (body.url && earlierUrls.includes(body.url as string))
    compare(findings, S.fresh, 'createShare after revoke: url', 'a new link', body.url);
  const share: ShareRecord = {
    id,
    org: org.ref,
    segmentationId: segmentation.id,
    url: typeof body.url === 'string' ? body.url : null,
    views: 0,
    revoked: false,
  };
  readShare(findings, share, body, 'createShare');
  world.shares.set(share.id, share);
  return findings;
}

function readShare(findings: Finding[], share: ShareRecord, body: Json, op: string): void {
  compare(findings, S.fields, `${op}: segmentation_id`, share.segmentationId, body.segmentation_id);
  compare(findings, S.fields, `${op}: access`, 'anyone_with_link', body.access);
  compare(findings, S.fields, `${op}: role`, 'viewer', body.role);
  compare(findings, S.views, `${op}: view_count`, share.views, body.view_count);
  const last = body.last_viewed_at ?? null;
  if (share.views === 0) compare(findings, S.lastView, `${op}: last_viewed_at`, null, last);
  else if (typeof last !== 'string' || Date.parse(last) < share.lastViewSentAt! - CLOCK_SKEW_MS)
    compare(
      findings,
      S.lastView,
      `${op}: last_viewed_at`,
      `at or after ${new Date(share.lastViewSentAt!).toISOString()}`,
      last,
    );
  if (typeof last === 'string' && share.views > 0) lastViewMoved(findings, share, last, op);
  if (share.revoked) {
    if (typeof body.revoked_at !== 'string')
      compare(findings, S.revoked, `${op}: revoked_at`, 'a date-time', body.revoked_at ?? null);
  } else compare(findings, S.live, `${op}: revoked_at`, null, body.revoked_at ?? null);
}

/** Opens more than this apart (the later sent after the earlier was answered) differ even at second resolution. */
const RESOLUTION_MS = 1000;

/**
 * The client's clock bounds the target's: an open handled before its answer arrived and a later
 * one handled after it was sent are at least (sent - answered) apart on the target's clock too, so
 * with more than a second between them the later last_viewed_at is later than the one read before.
 */
function lastViewMoved(findings: Finding[], share: ShareRecord, last: string, op: string): void {
  const earlier = share.lastViewedRead;
  if (earlier && share.views > earlier.views) {
    const apart = share.lastViewSentAt! - earlier.viewAnsweredAt;
    if (apart > RESOLUTION_MS && !(Date.parse(last) > Date.parse(earlier.value)))
      compare(
        findings,
        S.lastViewMoves,
        `${op}: last_viewed_at after ${share.views - earlier.views} more open(s), ${apart} ms after view ${earlier.views} was answered`,
        `later than ${earlier.value}`,
        last,
      );
  }
  if (!earlier || share.views > earlier.views)
    share.lastViewedRead = { views: share.views, value: last, viewAnsweredAt: share.lastViewAnsweredAt! };
}

export function observeOnShare(world: World, org: Organization, x: Exchange, share: ShareRecord): Finding[] {
  const findings: Finding[] = [];
  if (shareGone(world, share)) return (expectStatus(findings, S.gone, x, [404]), findings);
  if (share.org !== org.ref) return (expectStatus(findings, S.foreign, x, [404]), findings);
  if (x.operationId === 'revokeShare') {
    // A first revoke's answer is not shown, so any 2xx. Revoking a revoked share is not shown
    // either: any answer but a 5xx, and it stays revoked. The document's choice (200, the same
    // share) is judged by its own check under its assumed clause alone, since checks of stated
    // clauses revoke again when they clean up.
    const wasRevoked = share.revoked;
    if (!wasRevoked) expectStatus(findings, S.revoked, x, [200, 202, 204]);
    if (x.status < 300) share.revoked = true;
    if (x.status === 200 && isObject(x.body) && !wasRevoked)
      readShare(findings, share, x.body, 'revokeShare');
    return findings;
  }
  if (!expectStatus(findings, S.revoked, x, [200]) || !isObject(x.body)) return findings;
  compare(findings, S.revoked, 'getShare: id', share.id, x.body.id);
  if (share.url !== null) compare(findings, S.fields, 'getShare: url', share.url, x.body.url ?? share.url);
  readShare(findings, share, x.body, 'getShare');
  return findings;
}

/** A GET of a share's page (no credential): opens while live, shows the count, counts a view. */
export function observePage(world: World, x: Exchange, share: ShareRecord): Finding[] {
  const findings: Finding[] = [];
  const subject = `GET the share page of share ${share.id}`;
  keysCarried(world, x, subject, findings);
  if (share.revoked || shareGone(world, share)) {
    if (x.status < 300)
      findings.push({
        sentence: share.revoked ? S.closed : S.gone,
        subject,
        predicted: 'not 2xx',
        received: String(x.status),
      });
    return findings;
  }
  if (x.status !== 200) {
    const sentence = x.key === null ? S.page : S.pageWithKey;
    findings.push({ sentence, subject, predicted: '200', received: String(x.status) });
    return findings;
  }
  share.views++;
  // opens that overlap may be observed in any order: the last open is the one sent last, and the
  // views counted so far were all answered by the latest answer among them
  share.lastViewSentAt = Math.max(share.lastViewSentAt ?? x.sentAt, x.sentAt);
  share.lastViewAnsweredAt = Math.max(share.lastViewAnsweredAt ?? x.receivedAt, x.receivedAt);
  const segmentation = world.segmentations.get(share.segmentationId);
  const text = x.bytes
    .toString('utf8')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;|&#160;/g, ' ');
  if (!segmentation) return findings;
  // every count the page states ("N cells") is the prediction's, not only one of them
  const stated = [...text.matchAll(/(\d[\d,.]*)\s*(?:cells?|ROIs?)\b/gi)].map((m) => m[1]);
  const wrong = stated.find((n) => Number(n.replace(/[,.]/g, '')) !== segmentation.cellCount);
  const shown = new RegExp(`(^|[^0-9.,])${segmentation.cellCount}([^0-9.,]|$)`).test(text);
  if (wrong !== undefined || !shown)
    findings.push({
      sentence: S.page,
      subject: `${subject}: the count shown`,
      predicted: `${segmentation.cellCount} (cell_count of its prediction)`,
      received: wrong !== undefined ? `${wrong} cells` : 'no such count',
    });
  return findings;
}

/** Characters either side of a key found on a page, to show where it was without the key itself. */
const AROUND = 40;

/**
 * The page's body and headers hold none of the keys the oracle knows, as written or percent-encoded
 * (a download link signed `?api_key=`, a key in a script or a cookie): whoever opens the public
 * link would hold it. The finding shows where, with the key itself replaced by `<key>`.
 */
function keysCarried(world: World, x: Exchange, subject: string, findings: Finding[]): void {
  const places: Array<[string, string]> = [
    ['body', x.bytes.toString('utf8')],
    ...Object.entries(x.headers).map(([name, value]): [string, string] => [`header ${name}`, value]),
  ];
  for (const [key, owner] of world.keys)
    for (const written of new Set([key, encodeURIComponent(key)]))
      for (const [place, text] of places) {
        const at = text.indexOf(written);
        if (at < 0) continue;
        const shown = text
          .slice(Math.max(0, at - AROUND), at + written.length + AROUND)
          .replaceAll(written, '<key>');
        findings.push({
          sentence: S.keyOnPage,
          subject: `${subject}: a credential on the public page`,
          predicted: 'no API key on the page',
          received: `the API key of organization ${owner} in its ${place}: …${shown}…`,
        });
        return;
      }
}

export const shareOfUrl = (world: World, url: string): ShareRecord | undefined =>
  [...world.shares.values()].find((s) => s.url !== null && s.url === url);

const PREVIEW = /\/share\/([^/]+)\/image\.png$/;

/**
 * The share whose page's preview image this URL asks for (`/share/<token>/image.png` on the
 * target, whatever origin its link names), matched by the token as written.
 */
export function previewShareOfUrl(world: World, url: string): ShareRecord | undefined {
  const token = PREVIEW.exec(new URL(url).pathname)?.[1];
  if (token === undefined) return undefined;
  return [...world.shares.values()].find((s) => s.url !== null && splitToken(s.url)?.[1] === token);
}

/**
 * The preview image of a share's page: served while the link is live (it counts no view: the
 * page's open does), and never once the share is revoked or its image deleted, since it is a
 * copy of the image a delete takes and a revoke closes.
 */
export function observePreview(world: World, x: Exchange, share: ShareRecord): Finding[] {
  const subject = `GET the preview image of share ${share.id}`;
  const received = String(x.status);
  if (share.revoked || shareGone(world, share)) {
    const sentence = share.revoked ? S.previewClosed : S.previewGone;
    return x.status < 300 ? [{ sentence, subject, predicted: 'not 2xx', received }] : [];
  }
  if (x.status === 200) return [];
  return [{ sentence: x.key === null ? S.preview : S.pageWithKey, subject, predicted: '200', received }];
}

/** The token a share url ends in, and what comes before it. */
function splitToken(url: string): [string, string] | undefined {
  const at = url.lastIndexOf('/share/');
  return at < 0 ? undefined : [url.slice(0, at + 7), url.slice(at + 7)];
}

/** A token one character apart from another of the same length. */
const oneChanged = (a: string, b: string): boolean =>
  a.length === b.length && [...a].filter((c, i) => c !== b[i]).length === 1;

/**
 * A token with the case of its letters changed: another token, since the document's token is
 * opaque and a URL's path is compared case-sensitively (RFC 3986 6.2.2.1); a lookup that ignores
 * case would open it.
 */
const caseChanged = (a: string, b: string): boolean => a !== b && a.toLowerCase() === b.toLowerCase();

/**
 * The share whose link this URL is, cut short, with one character of its token changed, or with
 * its letters in another case: a link no client was given, so the token matches no share and the
 * page must not open (a lookup by prefix, a fuzzy or a case-blind match would open it). Another
 * share's token never arises this way.
 */
export function mangledShareOfUrl(world: World, url: string): ShareRecord | undefined {
  const asked = splitToken(url);
  if (!asked || [...world.shares.values()].some((s) => s.url === url)) return undefined;
  return [...world.shares.values()].find((s) => {
    const own = s.url === null ? undefined : splitToken(s.url);
    if (!own || own[0] !== asked[0] || own[1] === asked[1]) return false;
    return (
      (asked[1].length > 0 && own[1].startsWith(asked[1])) ||
      oneChanged(own[1], asked[1]) ||
      caseChanged(own[1], asked[1])
    );
  });
}

/** A GET of a share page at a mangled link of a known share: the "no longer available" page, never 2xx. */
export function observeMangledPage(x: Exchange, share: ShareRecord): Finding[] {
  if (x.status < 200 || x.status >= 300) return [];
  return [
    {
      sentence: S.mangled,
      subject: `GET a truncated or changed link of share ${share.id} (${x.url})`,
      predicted: 'not 2xx',
      received: String(x.status),
    },
  ];
}
