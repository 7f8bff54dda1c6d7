import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMPARISON_SABOTAGES } from './sabotage-comparisons.js';
import { ORACLE_SABOTAGES } from './sabotage-oracle.js';
import type { Answer, Exchange, ProxyState, SabotageCase } from './sabotage-case.js';
import { editCsv, flipPng, shiftRoiOutlines } from './sabotage-edits.js';

/**
 * The catalogue of deliberately broken builds of the mock, for proving that the contract suite can
 * fail: each case breaks one rule of the interface by editing a request on its way to a healthy
 * mock or an answer on its way back (sabotage-proxy.ts carries them), each response still valid
 * against the document where the rule is about meaning. Nothing of this lives in the mock.
 */

export type { Answer, Exchange, ProxyState, SabotageCase } from './sabotage-case.js';

const seed = JSON.parse(readFileSync(path.resolve('fixtures/seed.json'), 'utf8')) as {
  base_models: Array<{ id: string; name: string }>;
};
const DARK_CELLS_MODEL = seed.base_models.find((m) => m.name === 'brightfield-dark-cells')!.id;

const route = (exchange: Exchange) => exchange.path.split('?')[0];
const isCsv = (answer: Answer) => (answer.headers['content-type'] ?? '').startsWith('text/csv');
const csvEdit =
  (edit: (row: Record<string, string>) => void) =>
  (_exchange: Exchange, answer: Answer): void => {
    if (isCsv(answer) && answer.status === 200) answer.body = editCsv(answer.body, edit);
  };
const json = (buffer: Buffer) => JSON.parse(buffer.toString('utf8')) as Record<string, unknown>;
const isStoragePut = (exchange: Exchange) =>
  exchange.method === 'PUT' && !route(exchange).startsWith('/api/');

/**
 * Sends a part PUT whose query differs from the URL handed out only in `param` to the URL as
 * handed out: a store that does not check that parameter.
 */
function ignoreEdited(param: RegExp) {
  return (exchange: Exchange, state: ProxyState) => {
    if (!isStoragePut(exchange)) return;
    const given = state.presigned.get(route(exchange));
    if (!given) return;
    const sent = new URL(exchange.path, 'http://x');
    const differing = [...given.searchParams.keys()].filter(
      (k) => sent.searchParams.get(k) !== given.searchParams.get(k),
    );
    if (differing.length === 1 && param.test(differing[0])) exchange.path = given.pathname + given.search;
  };
}

/** Adds one to the month's analyses of the organization whose key sent `exchange`. */
async function countOneMore(exchange: Exchange, state: ProxyState): Promise<void> {
  const key = exchange.headers.get('authorization')?.replace(/^Bearer /, '');
  const organizations = (await (await fetch(`${state.target}/__mock/organizations`)).json()) as Array<{
    id: string;
    keys: Array<{ id: string }>;
    usage: { analyses_this_month: number };
  }>;
  // Listings name keys by id (`key_` and 16 hex digits of the key's SHA-256), never in clear.
  const keyId = key && `key_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  const org = organizations.find((o) => keyId && o.keys.some((k) => k.id === keyId));
  if (!org) return;
  await fetch(`${state.target}/__mock/organizations/${org.id}/usage`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ analyses_this_month: org.usage.analyses_this_month + 1 }),
  });
}

export const SABOTAGES = {
  /** complete answers 200 instead of the stated 202. */
  'wrong-status': {
    breaks: ['UP-04'],
    files: ['uploads.check.ts'],
    response: (exchange, answer) => {
      if (/\/complete$/.test(route(exchange)) && answer.status === 202) answer.status = 200;
    },
  },
  /** Image responses lose their required upload_status. */
  'missing-field': {
    breaks: ['UP-11'],
    files: ['uploads.check.ts'],
    response: (exchange, answer) => {
      if (
        exchange.method === 'GET' &&
        /^\/api\/v1\/(upload|image)\/[^/]+$/.test(exchange.path) &&
        answer.status === 200
      ) {
        const image = json(answer.body);
        delete image.upload_status;
        answer.body = Buffer.from(JSON.stringify(image));
      }
    },
  },
  /** Another organization's key reads the main organization's images. */
  'cross-org-leak': {
    breaks: ['ISO-01'],
    files: ['isolation.check.ts'],
    request: (exchange, state) => {
      if (
        exchange.method === 'GET' &&
        exchange.path.startsWith('/api/v1/upload/') &&
        exchange.headers.get('authorization') === `Bearer ${state.keys.other}`
      )
        exchange.headers.set('authorization', `Bearer ${state.keys.main}`);
    },
  },
  /** measurements.csv calls area_px "area". */
  'wrong-csv-header': {
    breaks: ['EXP-01'],
    files: ['exports.check.ts'],
    response: (_exchange, answer) => {
      if (isCsv(answer))
        answer.body = Buffer.from(answer.body.toString('utf8').replace(',area_px,', ',area,'));
    },
  },
  /** A missing key is let through. */
  'no-auth': {
    breaks: ['AUTH-01'],
    files: ['auth.check.ts'],
    request: (exchange, state) => {
      if (!exchange.headers.has('authorization'))
        exchange.headers.set('authorization', `Bearer ${state.keys.main}`);
    },
  },
  /** Predictions ignore the model asked for and run the first base model (dark cells on bright). */
  'ignores-model': {
    breaks: ['SMP-01'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    request: (exchange) => {
      if (exchange.method !== 'POST' || route(exchange) !== '/api/v1/predict') return;
      const body = json(exchange.body);
      body.model_id = DARK_CELLS_MODEL;
      exchange.body = Buffer.from(JSON.stringify(body));
    },
  },
  /** area_px one more than the pixel count. */
  'area-off-by-one': {
    breaks: ['MEAS-01'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: csvEdit((row) => (row.area_px = String(Number(row.area_px) + 1))),
  },
  /** Centroid as the mean pixel index, without the + 0.5 of pixel-corner coordinates. */
  'centroid-without-half': {
    breaks: ['MEAS-02'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: csvEdit((row) => {
      row.centroid_x = (Number(row.centroid_x) - 0.5).toFixed(4);
      row.centroid_y = (Number(row.centroid_y) - 0.5).toFixed(4);
    }),
  },
  /** Bounding box width and height counted inclusively (max - min + 1 of corner coordinates). */
  'bbox-inclusive': {
    breaks: ['MEAS-03'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: csvEdit((row) => {
      row.bbox_w = String(Number(row.bbox_w) + 1);
      row.bbox_h = String(Number(row.bbox_h) + 1);
    }),
  },
  /** Perimeter rounded to whole pixels. */
  'perimeter-rounded': {
    breaks: ['MEAS-04'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: csvEdit((row) => (row.perimeter_px = String(Math.round(Number(row.perimeter_px))))),
  },
  /** Confluency as a fraction (0-1) where the document says percent. */
  'confluency-fraction': {
    breaks: ['MEAS-05'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: csvEdit((row) => (row.confluency = (Number(row.confluency) / 100).toFixed(6))),
  },
  /** roi_index counted from 0. */
  'roi-index-zero-based': {
    breaks: ['MEAS-06'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: csvEdit((row) => (row.roi_index = String(Number(row.roi_index) - 1))),
  },
  /** image_width and image_height swapped. */
  'width-height-swapped': {
    breaks: ['MEAS-07'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: csvEdit((row) => ([row.image_width, row.image_height] = [row.image_height, row.image_width])),
  },
  /** The overlay drawn upside down (y up instead of y down). */
  'overlay-flipped': {
    breaks: ['MEAS-08'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: async (exchange, answer) => {
      if (route(exchange).endsWith('/overlay.png') && answer.status === 200)
        answer.body = await flipPng(answer.body);
    },
  },
  /** ImageJ ROI outlines one pixel off their own bounds. */
  'roi-outline-shifted': {
    breaks: ['MEAS-09'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    response: async (exchange, answer) => {
      if (route(exchange).endsWith('/rois.zip') && answer.status === 200)
        answer.body = await shiftRoiOutlines(answer.body);
    },
  },
  /** A part's ETag is not the MD5 of its bytes. */
  'etag-not-md5': {
    breaks: ['UP-17'],
    files: ['uploads.check.ts'],
    only: 'completes without a body',
    response: (exchange, answer) => {
      if (isStoragePut(exchange) && answer.status === 200)
        answer.headers.etag = `"${'0123456789abcdef'.repeat(2)}"`;
    },
  },
  /** The store does not check the signature of a part URL. */
  'signature-unchecked': {
    breaks: ['UP-18'],
    files: ['uploads.check.ts'],
    only: 'tampered signature',
    request: ignoreEdited(/signature/i),
  },
  /** The store does not check the expiry of a part URL against its signature. */
  'expiry-unchecked': {
    breaks: ['UP-19'],
    files: ['uploads.check.ts'],
    only: 'tampered signature',
    request: ignoreEdited(/^(expires|x-amz-expires|x-amz-date)$/i),
  },
  /** An image's created_at is the time of the read. */
  'created-at-moves': {
    breaks: ['STB-01'],
    files: ['stability.check.ts'],
    only: 'must not change',
    response: (exchange, answer) => {
      if (
        exchange.method === 'GET' &&
        /^\/api\/v1\/(upload|image)\/[^/]+$/.test(route(exchange)) &&
        answer.status === 200
      ) {
        const image = json(answer.body);
        image.created_at = new Date(Date.now() + 1000).toISOString();
        answer.body = Buffer.from(JSON.stringify(image));
      }
    },
  },
  /** The storage cap lets one image more through. */
  'storage-cap-off-by-one': {
    breaks: ['CAP-05'],
    files: ['caps-exact.check.ts'],
    request: (exchange) => {
      if (exchange.method !== 'POST' || route(exchange) !== '/__mock/organizations') return;
      const body = json(exchange.body) as { plan: { storage_cap_images: number } };
      body.plan.storage_cap_images += 1;
      exchange.body = Buffer.from(JSON.stringify(body));
    },
  },
  /** The analysis cap lets one prediction more through. */
  'analysis-cap-off-by-one': {
    breaks: ['CAP-06'],
    files: ['caps-exact.check.ts'],
    request: (exchange) => {
      if (exchange.method !== 'POST' || route(exchange) !== '/__mock/organizations') return;
      const body = json(exchange.body) as { plan: { monthly_analysis_cap: number } };
      body.plan.monthly_analysis_cap += 1;
      exchange.body = Buffer.from(JSON.stringify(body));
    },
  },
  /** A skipped prediction counts against the month's analyses. */
  'skipped-counts': {
    breaks: ['PRED-07'],
    files: ['caps-exact.check.ts'],
    only: 'analysis cap',
    response: async (exchange, answer, state) => {
      if (
        route(exchange) === '/api/v1/predict' &&
        answer.status === 200 &&
        json(answer.body).status === 'skipped'
      )
        await countOneMore(exchange, state);
    },
  },
  /** A prediction refused with 404 still counts against the month's analyses. */
  'refused-counts': {
    breaks: ['CAP-07'],
    files: ['caps-exact.check.ts'],
    only: 'analysis cap',
    response: async (exchange, answer, state) => {
      if (route(exchange) === '/api/v1/predict' && answer.status === 404) await countOneMore(exchange, state);
    },
  },
  /** The first read of a prediction answers a status the document does not list. */
  'unknown-status': {
    breaks: ['PRED-03'],
    files: ['predictions.check.ts'],
    only: 'acknowledged at once',
    message: /QUEUED/,
    response: (exchange, answer, state) => {
      const match = /^\/api\/v1\/predict\/([^/]+)$/.exec(route(exchange));
      if (!match || exchange.method !== 'GET' || answer.status !== 200 || state.polled.has(match[1])) return;
      state.polled.add(match[1]);
      const prediction = json(answer.body);
      prediction.status = 'QUEUED';
      delete prediction.segmentation_id;
      delete prediction.cell_count;
      answer.body = Buffer.from(JSON.stringify(prediction));
    },
  },
  /** A deleted image still reads, as a ready image (through GET /upload/{id}). */
  'deleted-still-readable': {
    breaks: ['STATE-01'],
    files: ['stateful.check.ts'],
    message: /shrunk to \d+ commands: .*delete.*getUpload/s,
    // Seed 3 finds it in the first runs (each starts with an image of its own), shrunk to a delete
    // and a read; the bound of 150 runs stays for a target that hides it better.
    env: { CONTRACT_SEED: '3', CONTRACT_STATEFUL_RUNS: '150' },
    response: (exchange, answer, state) => {
      const match = /^\/api\/v1\/(upload|image)\/([^/]+)$/.exec(route(exchange));
      if (!match) return;
      const id = match[2];
      if (exchange.method === 'DELETE' && answer.status === 200) state.deleted.add(id);
      if (
        exchange.method !== 'GET' ||
        match[1] !== 'upload' ||
        answer.status !== 404 ||
        !state.deleted.has(id)
      )
        return;
      const now = new Date().toISOString();
      answer.status = 200;
      answer.headers['content-type'] = 'application/json';
      answer.body = Buffer.from(
        JSON.stringify({
          id,
          name: 'cells.tif',
          image_type: 'TIFF',
          size: 1,
          shape: [1, 1],
          upload_status: 'ready',
          created_at: now,
          processed_at: now,
        }),
      );
    },
  },
  /** Deleting an image answers 500 after deleting it: only the checks' own cleanup meets it. */
  'cleanup-5xx': {
    breaks: ['PRED-01', 'PRED-02', 'PRED-03'],
    files: ['predictions.check.ts'],
    only: 'reaches COMPLETED with segmentation_id',
    message: /cleanup got server errors or met what it must not delete:\n- .*server error 500/,
    response: (exchange, answer) => {
      if (exchange.method !== 'DELETE' || !/^\/api\/v1\/image\/[^/]+$/.test(route(exchange))) return;
      if (answer.status !== 200) return;
      answer.status = 500;
      answer.headers['content-type'] = 'application/json';
      answer.body = Buffer.from(JSON.stringify({ detail: 'Internal Server Error' }));
    },
  },
  /**
   * A CORS layer that lists its exposed headers only on successes: a page of another origin reads
   * a 401 but not its WWW-Authenticate, nor Retry-After on the answers that carry one.
   */
  'cors-errors-unexposed': {
    breaks: ['CORS-01'],
    files: ['cors.check.ts'],
    message: /Access-Control-Expose-Headers/,
    response: (exchange, answer) => {
      if (answer.status >= 400 && route(exchange).startsWith('/api/v1/'))
        delete answer.headers['access-control-expose-headers'];
    },
  },
  /** The key is read only after `Bearer ` as written: `bearer <key>` reaches the API as no credential. */
  'bearer-scheme-case-sensitive': {
    breaks: ['AUTH-07'],
    files: ['auth.check.ts'],
    only: 'bearer or BEARER',
    message: /under the scheme bearer: .* answered 401/,
    request: (exchange) => {
      const sent = exchange.headers.get('authorization');
      if (sent && /^bearer /i.test(sent) && !sent.startsWith('Bearer '))
        exchange.headers.delete('authorization');
    },
  },
  /** The gateway checks any key sent, on the share pages too: a key it does not know answers 401. */
  'share-page-refuses-bad-key': {
    breaks: ['AUTH-08'],
    files: ['shares.check.ts'],
    only: 'credential it does not need',
    message: /open the share page with an unknown key .* answered 401/,
    response: (exchange, answer, state) => {
      const key = exchange.headers.get('authorization')?.replace(/^Bearer /, '');
      if (!route(exchange).startsWith('/share/') || !key || Object.values(state.keys).includes(key)) return;
      answer.status = 401;
      answer.headers = { 'content-type': 'application/json', 'www-authenticate': 'Bearer' };
      answer.body = Buffer.from(JSON.stringify({ detail: 'Invalid API key' }));
    },
  },
  /** measurements.csv writes a client's image name as it came, so a name that starts a formula runs. */
  'csv-formula-unescaped': {
    breaks: ['SEC-01'],
    files: ['safe-to-open.check.ts'],
    message: /image_name cells a spreadsheet would run as a formula/,
    response: (_exchange, answer) => {
      if (isCsv(answer) && answer.status === 200)
        answer.body = Buffer.from(answer.body.toString('utf8').replace(/(^|\r\n)'(?=[=+\-@\t\r])/g, '$1'));
    },
  },
  ...COMPARISON_SABOTAGES,
  ...ORACLE_SABOTAGES,
} as const satisfies Record<string, SabotageCase>;

export type Sabotage = keyof typeof SABOTAGES;
