import { randomUUID } from 'node:crypto';
import { bearer, isJson, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import { callerOrg, requestJson, UUID } from './state.js';

/**
 * A duplicate run the backend accepts where the mock skips: a new id is answered `submitted`, and
 * polling it reads the run in flight (the second run of the same image and model) under the new id.
 */
function aliases(state: ProxyState): Map<string, string> {
  return memoMap<string, string>(state, 'g-pred-aliases');
}

function acceptAsNewRun(answer: Answer, state: ProxyState): void {
  const ack = readJson<{ prediction_id: string }>(answer);
  const id = randomUUID();
  aliases(state).set(id, ack.prediction_id);
  writeJson(answer, { prediction_id: id, status: 'submitted', reason: 'Queued for segmentation.' });
}

function pollAlias(exchange: Exchange, state: ProxyState): void {
  const poll = match(exchange, 'GET', new RegExp(`^/api/v1/predict/${UUID}$`));
  const real = poll ? aliases(state).get(poll[1].toLowerCase()) : undefined;
  if (poll && real) {
    memoMap<Exchange, string>(state, 'g-pred-alias-of').set(exchange, poll[1]);
    exchange.path = `/api/v1/predict/${real}`;
  }
}

function renameAlias(exchange: Exchange, answer: Answer, state: ProxyState): void {
  const alias = memoMap<Exchange, string>(state, 'g-pred-alias-of').get(exchange);
  if (!alias || !isJson(answer) || answer.status !== 200) return;
  memoMap<Exchange, string>(state, 'g-pred-alias-of').delete(exchange);
  writeJson(answer, { ...readJson<Record<string, unknown>>(answer), prediction_id: alias });
}

function isSkippedAck(exchange: Exchange, answer: Answer): boolean {
  return (
    !!match(exchange, 'POST', /^\/api\/v1\/predict$/) &&
    answer.status === 200 &&
    isJson(answer) &&
    readJson<{ status?: string }>(answer).status === 'skipped'
  );
}

export const PREDICTIONS: Regression[] = [
  {
    id: 'G-PRED-DUPLICATE-CASE-SENSITIVE',
    area: 'predictions',
    description:
      'The in-flight index is keyed by the ids as the client wrote them: the same image and model sent in upper case (accepted) while the identical run is in flight is not recognised, and a second run is queued (`submitted`, a new id)',
    violates:
      '"`status` | string | `submitted` for a fresh run; `skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    request: pollAlias,
    response(exchange, answer, state) {
      renameAlias(exchange, answer, state);
      if (!isSkippedAck(exchange, answer)) return;
      const body = requestJson(exchange);
      const written = `${String(body?.image_id ?? '')}${String(body?.model_id ?? '')}`;
      if (written !== written.toLowerCase()) acceptAsNewRun(answer, state);
    },
  },
  {
    id: 'G-PRED-DUPLICATE-PER-KEY',
    area: 'predictions',
    description:
      'The in-flight index is keyed by the API key instead of the organization: a second key of the same organization repeating a prediction still in flight gets a second run (`submitted`, a new id) instead of `skipped`',
    violates:
      '"`status` | string | `submitted` for a fresh run; `skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    request: pollAlias,
    response(exchange, answer, state) {
      renameAlias(exchange, answer, state);
      const byKey = memoMap<string, string>(state, 'g-pred-run-key');
      if (match(exchange, 'POST', /^\/api\/v1\/predict$/) && answer.status === 200 && isJson(answer)) {
        const ack = readJson<{ prediction_id: string; status: string }>(answer);
        if (ack.status === 'submitted') byKey.set(ack.prediction_id, bearer(exchange) ?? '');
      }
      if (!isSkippedAck(exchange, answer)) return;
      const started = byKey.get(readJson<{ prediction_id: string }>(answer).prediction_id);
      if (started !== undefined && started !== bearer(exchange) && callerOrg(exchange, state))
        acceptAsNewRun(answer, state);
    },
  },
  {
    id: 'G-PRED-COMPLETED-FLAPS',
    area: 'predictions',
    description:
      'Prediction reads alternate between the primary and a replica that holds the row as it was while running: after a read that says COMPLETED, the next one answers STARTED without `segmentation_id` or `cell_count`, then COMPLETED again',
    violates:
      '"Poll `GET /predict/{prediction_id}` until `status` is `COMPLETED` (or `FAILED`). The completed response carries `segmentation_id` and `cell_count`."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const poll = match(exchange, 'GET', new RegExp(`^/api/v1/predict/${UUID}$`));
      if (!poll || answer.status !== 200 || !isJson(answer)) return;
      const body = readJson<Record<string, unknown>>(answer);
      if (body.status !== 'COMPLETED') return;
      const reads = memoMap<string, number>(state, 'g-pred-flap');
      const id = poll[1].toLowerCase();
      const n = (reads.get(id) ?? 0) + 1;
      reads.set(id, n);
      if (n % 2 === 0) {
        delete body.segmentation_id;
        delete body.cell_count;
        writeJson(answer, { ...body, status: 'STARTED' });
      }
    },
  },
];
