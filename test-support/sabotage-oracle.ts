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
    files: ['read-back.check.ts'],
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
} as const satisfies Record<string, SabotageCase>;
