import { randomUUID } from 'node:crypto';
import type { Exchange, Regression } from '../regression.js';
import { isUuid, jsonAnswer, match, memoMap, writeJson } from '../edit-helpers.js';
import {
  canonicalId,
  errorAnswer,
  inFlight,
  okJson,
  orgOf,
  orgView,
  predictionOfSegmentation,
  replaceAnswer,
  requestJson,
  ROUTES,
  serialized,
  setAnalyses,
  storedPredictions,
} from './kit.js';

/** The fields of a prediction a read answers (the stored row has more). */
const PREDICTION_FIELDS = [
  'prediction_id',
  'status',
  'image_id',
  'model_id',
  'created_at',
  'segmentation_id',
  'cell_count',
  'error',
] as const;

/** The ids a predict names, as the in-flight index keys them. */
function predictKey(exchange: Exchange, orgId: string | undefined): string {
  const body = requestJson(exchange);
  return `${orgId}|${canonicalId(body.image_id)}|${canonicalId(body.model_id)}`;
}

/** Set J, predictions. */
export const PREDICTIONS: Regression[] = [
  {
    id: 'J-PRED-CONCURRENT-DUPLICATE-RUNS',
    area: 'predictions',
    description:
      'The duplicate check reads the runs in flight and inserts the new one in two statements without a lock: identical predicts sent at the same moment each find nothing in flight, each queue a run and answer `submitted` with an id of its own (and each counts against the month)',
    violates: '"`submitted` for a fresh run; `skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    request(exchange, state) {
      const read = match(exchange, 'GET', ROUTES.prediction);
      const alias = read && memoMap<string, string>(state, 'run-alias').get(canonicalId(read[1]));
      if (read && alias) {
        memoMap<Exchange, string>(state, 'read-as').set(exchange, read[1]);
        exchange.path = exchange.path.replace(read[1], alias);
      }
      if (match(exchange, 'POST', ROUTES.predict))
        inFlight(state, 'predict').enter(exchange, predictKey(exchange, orgOf(exchange, state)?.id));
    },
    async response(exchange, answer, state) {
      const readAs = memoMap<Exchange, string>(state, 'read-as');
      const asked = readAs.get(exchange);
      readAs.delete(exchange);
      const read = asked ? okJson(answer) : null;
      if (read) return writeJson(answer, { ...read, prediction_id: canonicalId(asked) });
      if (!inFlight(state, 'predict').leave(exchange)) return;
      const ack = okJson(answer);
      const org = orgOf(exchange, state);
      if (ack?.status !== 'skipped' || typeof ack.prediction_id !== 'string' || !org) return;
      const fresh = randomUUID();
      memoMap<string, string>(state, 'run-alias').set(fresh, ack.prediction_id);
      writeJson(answer, { prediction_id: fresh, status: 'submitted', reason: 'Queued for segmentation.' });
      await serialized(state, `usage:${org.id}`, async () => {
        const view = await orgView(state, org.id);
        if (view) await setAnalyses(state, org.id, view.usage.analyses_this_month + 1);
      });
    },
  },
  {
    id: 'J-PRED-BATCH-RESULTS-SWAPPED',
    area: 'predictions',
    description:
      "Workers take an organization's runs in batches and write a batch's results back by position in the order its runs finished: two runs submitted within a second of each other on different images each read COMPLETED with the other's `segmentation_id` and `cell_count` (and STARTED until both are done)",
    violates:
      '"Identified by `segmentation_id` (uuid), produced by a completed prediction." (the one polled)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const pairs = memoMap<string, string>(state, 'batch-pairs');
      const body = okJson(answer);
      const org = orgOf(exchange, state);
      if (!body || !org) return;
      if (match(exchange, 'POST', ROUTES.predict)) {
        if (body.status !== 'submitted') return;
        const run = {
          id: canonicalId(body.prediction_id),
          image: canonicalId(requestJson(exchange).image_id),
          at: Date.now(),
        };
        const last = state.memo.get(`last-run:${org.id}`) as typeof run | undefined;
        if (last && run.at - last.at <= 1000 && last.image !== run.image && !pairs.has(last.id)) {
          pairs.set(last.id, run.id).set(run.id, last.id);
          state.memo.delete(`last-run:${org.id}`);
        } else state.memo.set(`last-run:${org.id}`, run);
        return;
      }
      const other = match(exchange, 'GET', ROUTES.prediction) && pairs.get(canonicalId(body.prediction_id));
      if (!other || body.status !== 'COMPLETED') return;
      // Read from the organization's own tables: a poll would count as one of the partner's.
      const partner = (await storedPredictions(state, org.id)).find((run) => run.prediction_id === other);
      if (partner?.status === 'COMPLETED') {
        Object.assign(body, { segmentation_id: partner.segmentation_id, cell_count: partner.cell_count });
      } else if (partner?.status === 'SUBMITTED' || partner?.status === 'STARTED') {
        body.status = 'STARTED';
        delete body.segmentation_id;
        delete body.cell_count;
      } else return;
      writeJson(answer, body);
    },
  },
  {
    id: 'J-PRED-READ-BY-SEGMENTATION-ID',
    area: 'predictions',
    description:
      "The prediction read looks its id up among prediction ids or segmentation ids (an OR added so the dashboard's result links resolve): GET /predict/{segmentation_id} answers that segmentation's prediction with 200 instead of 404",
    violates: '"404 | resource missing or outside the caller\'s organization" (no prediction has that id)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const read = match(exchange, 'GET', ROUTES.prediction);
      const org = orgOf(exchange, state);
      if (!read || answer.status !== 404 || !isUuid(read[1]) || !org) return;
      const found = await predictionOfSegmentation(state, org.id, canonicalId(read[1]));
      if (!found) return;
      const shown: Record<string, unknown> = {};
      for (const field of PREDICTION_FIELDS) if (found[field] !== undefined) shown[field] = found[field];
      replaceAnswer(answer, jsonAnswer(200, shown));
    },
  },
  {
    id: 'J-PRED-URN-ID-REFUSED',
    area: 'predictions',
    description:
      'POST /predict checks `image_id` and `model_id` with a hand-written UUID pattern that forgets the `urn:uuid:` form: such ids are refused 422 ("not a valid UUID") on predict, while every other route takes them',
    violates:
      'x-http-conventions.ids (x-assumed): "Ids are UUIDs compared case-insensitively (an urn:uuid: prefix, which format uuid accepts, too)"',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'POST', ROUTES.predict)) return;
      const body = requestJson(exchange);
      for (const field of ['image_id', 'model_id']) {
        const value = body[field];
        if (typeof value === 'string' && /^urn:uuid:/i.test(value))
          return errorAnswer(422, `${field}: '${value}' is not a valid UUID`);
      }
    },
  },
];
