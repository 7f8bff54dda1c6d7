import { createHash } from 'node:crypto';
import type { Answer, Exchange, SabotageCase } from './sabotage-case.js';
import { editCsv } from './sabotage-edits.js';

/**
 * Broken builds that only the oracle (contract-tests/model) catches: each breaks a value a client
 * can derive from earlier answers, an effect read back, a path the fixed checks never drove, or an
 * answer that tells organizations apart. Each answer stays valid against the document. The state a
 * case keeps (what it saw earlier) lives in the maps below: one proxy runs one case.
 */
const route = (exchange: Exchange) => exchange.path.split('?')[0];
const isJson = (answer: Answer) => (answer.headers['content-type'] ?? '').includes('json');
const body = (answer: Answer) => JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
const setBody = (answer: Answer, value: unknown) => (answer.body = Buffer.from(JSON.stringify(value)));
const bearer = (exchange: Exchange) => exchange.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const shareReads = new Map<string, Buffer>();
const lastPrediction = new Map<string, { id: string; model: string }>();
const ownerOf = new Map<string, string>();
const exported = new Set<string>();
const aborted = new Set<string>();
const firstShareRead = new Map<string, Record<string, unknown>>();
/** Image deletes through DELETE /image/{id}, by the key id (as the control plane lists keys) that sent them. */
const imageDeletes = new Map<string, number>();
const keyId = (key: string) => `key_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
const READ_BACK = { files: ['read-back.check.ts'] };

export const ORACLE_SABOTAGES = {
  /** The share of a deleted image still reads as it did. */
  'share-survives-image-delete': {
    breaks: ['SHR-06'],
    files: ['read-back.check.ts'],
    only: 'share of a deleted image',
    message: /oracle: getShare status: predicted 404, received 200/,
    response: (exchange, answer) => {
      if (exchange.method !== 'GET' || !/^\/api\/v1\/shares\/[^/]+$/.test(route(exchange))) return;
      if (answer.status === 200) shareReads.set(route(exchange), answer.body);
      else if (answer.status === 404 && shareReads.has(route(exchange))) {
        answer.status = 200;
        answer.body = shareReads.get(route(exchange))!;
      }
    },
  },
  /** The storage cap's 402 explains the monthly analysis cap. */
  'storage-402-names-analyses': {
    breaks: ['CAP-05'],
    files: ['caps-exact.check.ts'],
    only: 'storage cap holds at its exact boundary',
    message: /402 detail: predicted the storage cap/,
    response: (exchange, answer) => {
      if (answer.status === 402 && /^\/api\/v1\/(upload|image)$/.test(route(exchange)))
        setBody(answer, { detail: 'Monthly analysis cap reached: your plan allows 2 analyses per month.' });
    },
  },
  /** A prediction of another model on an image with one in flight answers the first as skipped. */
  'skipped-across-models': {
    breaks: ['PRED-07'],
    files: ['counters-read-back.check.ts'],
    only: 'another model on an image',
    message:
      /createPrediction: status \(no identical prediction in flight\): predicted "submitted", received "skipped"/,
    response: (exchange, answer) => {
      if (exchange.method !== 'POST' || route(exchange) !== '/api/v1/predict' || answer.status !== 200)
        return;
      const sent = JSON.parse(exchange.body.toString('utf8')) as { image_id: string; model_id: string };
      const ack = body(answer);
      const before = lastPrediction.get(sent.image_id);
      if (before && before.model !== sent.model_id && ack.status === 'submitted')
        setBody(answer, { ...ack, prediction_id: before.id, status: 'skipped' });
      else if (ack.status === 'submitted')
        lastPrediction.set(sent.image_id, { id: ack.prediction_id as string, model: sent.model_id });
    },
  },
  /** The CSV writes its integer pixel areas as decimals. */
  'csv-area-decimal': {
    breaks: ['EXP-02'],
    files: ['exports.check.ts'],
    only: 'columns parameter',
    message: /area_px: predicted "an integer", received "\d+\.0"/,
    response: (_exchange, answer) => {
      if (answer.status === 200 && (answer.headers['content-type'] ?? '').startsWith('text/csv'))
        answer.body = editCsv(answer.body, (row) => {
          if (row.area_px !== undefined) row.area_px = `${row.area_px}.0`;
        });
    },
  },
  /** A 404 for another organization's id says more than a missing id's. */
  'foreign-404-tells': {
    breaks: ['ISO-01'],
    files: ['read-back.check.ts'],
    only: '404 for another organization',
    message: /404 for another organization's id .* body/,
    response: (exchange, answer) => {
      if (answer.status === 200 && isJson(answer))
        for (const id of answer.body.toString('utf8').match(UUIDS) ?? [])
          if (!ownerOf.has(id)) ownerOf.set(id, bearer(exchange));
      const id = route(exchange).match(UUIDS)?.[0];
      if (
        answer.status === 404 &&
        isJson(answer) &&
        id &&
        ownerOf.has(id) &&
        ownerOf.get(id) !== bearer(exchange)
      )
        setBody(answer, { detail: `${String(body(answer).detail)} in this organization` });
    },
  },
  /** An export asked again names its attachment otherwise. */
  'export-repeat-disposition': {
    ...READ_BACK,
    breaks: ['EXP-01'],
    only: 'exports of one segmentation',
    message: /asked again \(200\): content-disposition/,
    response: (exchange, answer) => {
      if (answer.status !== 200 || !route(exchange).startsWith('/api/v1/export/')) return;
      if (exported.has(exchange.path))
        answer.headers['content-disposition'] = 'attachment; filename="export"';
      exported.add(exchange.path);
    },
  },
  /** The CSV declares a charset its bytes are not in. */
  'csv-declares-latin1': {
    ...READ_BACK,
    breaks: ['EXP-01'],
    only: 'exports of one segmentation',
    message: /exportMeasurementsCsv: image_name: predicted/,
    response: (_exchange, answer) => {
      if (answer.status === 200 && (answer.headers['content-type'] ?? '').startsWith('text/csv'))
        answer.headers['content-type'] = 'text/csv; charset=iso-8859-1';
    },
  },
  /** An aborted image reads failed without the reason the interface says it carries. */
  'abort-drops-upload-error': {
    breaks: ['UP-08'],
    files: ['uploads.check.ts'],
    only: 'abort marks the image failed',
    message: /upload_error of a failed image: predicted "a reason", received nothing/,
    response: (exchange, answer) => {
      const abort = /^\/api\/v1\/upload\/([^/]+)\/abort$/.exec(route(exchange));
      if (abort && answer.status === 200) aborted.add(abort[1]);
      const read = /^\/api\/v1\/(upload|image)\/([^/]+)$/.exec(route(exchange));
      if (read && exchange.method === 'GET' && answer.status === 200 && aborted.has(read[2])) {
        const image = body(answer);
        delete image.upload_error;
        setBody(answer, image);
      }
    },
  },
  /** A share read again keeps the view count and last view of its first read. */
  'view-count-stale': {
    ...READ_BACK,
    breaks: ['SHR-06'],
    only: 'share of a deleted image',
    message: /getShare: view_count: predicted 2, received 1/,
    response: (exchange, answer) => {
      if (exchange.method !== 'GET' || !/^\/api\/v1\/shares\/[^/]+$/.test(route(exchange))) return;
      if (answer.status !== 200) return;
      const share = body(answer);
      const first = firstShareRead.get(route(exchange));
      if (first)
        setBody(answer, { ...share, view_count: first.view_count, last_viewed_at: first.last_viewed_at });
      else firstShareRead.set(route(exchange), share);
    },
  },
  /** DELETE /image/{id} deletes the image but its slot stays counted. */
  'delete-image-keeps-count': {
    files: ['counters-read-back.check.ts'],
    breaks: ['CAP-07'],
    only: 'counters after each delete route',
    message: /usage of organization [^ ]+\.images: predicted 0, received 1/,
    response: (exchange, answer) => {
      if (
        exchange.method === 'DELETE' &&
        /^\/api\/v1\/image\/[^/]+$/.test(route(exchange)) &&
        answer.status === 200
      ) {
        const id = keyId(bearer(exchange));
        imageDeletes.set(id, (imageDeletes.get(id) ?? 0) + 1);
      }
      if (exchange.method !== 'GET' || route(exchange) !== '/__mock/organizations' || answer.status !== 200)
        return;
      const organizations = JSON.parse(answer.body.toString('utf8')) as Array<{
        keys: Array<{ id: string }>;
        usage: { images: number };
      }>;
      for (const org of organizations)
        for (const key of org.keys) org.usage.images += imageDeletes.get(key.id) ?? 0;
      setBody(answer, organizations);
    },
  },
} as const satisfies Record<string, SabotageCase>;
