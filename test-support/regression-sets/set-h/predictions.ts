import { randomUUID } from 'node:crypto';
import type { Regression } from '../regression.js';
import { bearer, caller, isJson, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import { idOn } from './kit.js';

const PREDICTION = /^\/api\/v1\/predict\/([^/]+)$/;

export const PREDICTIONS: Regression[] = [
  {
    id: 'H-PRED-DUPLICATE-STARTED-ONLY',
    area: 'predictions',
    description:
      "The duplicate check looks for an identical run among STARTED ones only (the workers' table), not the queue: repeating a predict while the first run is still SUBMITTED queues a second run (`submitted`, a new id) instead of answering `skipped`",
    violates:
      '"`status` | string | `submitted` for a fresh run; `skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    async request(exchange, state) {
      const fake = idOn(exchange, 'GET', PREDICTION);
      const real = fake && memoMap<string, string>(state, 'second-runs').get(fake);
      if (!fake || !real) return;
      const answer = await state.upstream('GET', `/api/v1/predict/${real}`, { key: bearer(exchange) });
      if (answer.status === 200 && isJson(answer))
        writeJson(answer, { ...readJson<Record<string, unknown>>(answer), prediction_id: fake });
      return answer;
    },
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 200) return;
      const ack = readJson<{ prediction_id: string; status: string }>(answer);
      if (ack.status !== 'skipped') return;
      const running = await state.upstream('GET', `/api/v1/predict/${ack.prediction_id}`, {
        key: bearer(exchange),
      });
      if (running.status !== 200 || readJson(running).status !== 'SUBMITTED') return;
      const fake = randomUUID();
      memoMap<string, string>(state, 'second-runs').set(fake, ack.prediction_id);
      writeJson(answer, { prediction_id: fake, status: 'submitted', reason: 'Queued for segmentation.' });
    },
  },
  {
    id: 'H-PRED-READ-BY-SUBMITTING-KEY',
    area: 'predictions',
    description:
      'Prediction reads filter on the API key that submitted the run (`submitted_by_key`) instead of its organization: a worker polling with another key of the same organization (rotation, a second service) is answered 404 "Prediction not found"',
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization." (a prediction of the organization is readable with any of its keys)',
    statedIn: 'interface',
    request(exchange, state) {
      const id = idOn(exchange, 'GET', PREDICTION);
      const owner = id && memoMap<string, string>(state, 'submitted-by').get(id);
      if (owner && caller(exchange, state) && owner !== bearer(exchange))
        return jsonAnswer(404, { detail: 'Prediction not found' });
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 200) return;
      const key = bearer(exchange);
      const submitted = memoMap<string, string>(state, 'submitted-by');
      const id = readJson<{ prediction_id: string }>(answer).prediction_id.toLowerCase();
      if (key && !submitted.has(id)) submitted.set(id, key);
    },
  },
  {
    id: 'H-PRED-FAILED-READ-AS-SUBMITTED',
    area: 'predictions',
    description:
      "The read maps the task queue's states to the API's with a table that lacks FAILURE, whose default is SUBMITTED: a run that failed reads SUBMITTED (no `error`) for ever, and a client polls it without end",
    violates: '"Clients poll until `COMPLETED` or `FAILED`." (a failed run must read `FAILED`)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200 || !isJson(answer)) return;
      const prediction = readJson(answer);
      if (prediction.status !== 'FAILED') return;
      prediction.status = 'SUBMITTED';
      delete prediction.error;
      writeJson(answer, prediction);
    },
  },
];
