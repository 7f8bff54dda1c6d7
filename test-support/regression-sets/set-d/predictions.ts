import { randomUUID } from 'node:crypto';
import type { Regression } from '../regression.js';
import {
  copyAnswer,
  isJson,
  isUuid,
  jsonAnswer,
  match,
  memoMap,
  readJson,
  writeJson,
} from '../edit-helpers.js';
import { detailOf } from './common.js';

const READ = /^\/api\/v1\/predict\/([^/]+)$/;

function editRead(edit: (prediction: Record<string, unknown>) => void): Regression['response'] {
  return (exchange, answer) => {
    if (!match(exchange, 'GET', READ) || answer.status !== 200 || !isJson(answer)) return;
    const prediction = readJson(answer);
    edit(prediction);
    writeJson(answer, prediction);
  };
}

export const PREDICTIONS: Regression[] = [
  {
    id: 'D-PRED-ACK-STATUS-UPPERCASE',
    area: 'predictions',
    description:
      "The acknowledgement's `status` is rendered from the prediction's status enum: `SUBMITTED` / `SKIPPED` instead of `submitted` / `skipped`",
    violates:
      'Prediction acknowledgement `status`: "`submitted` for a fresh run; `skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 200 || !isJson(answer))
        return;
      const ack = readJson(answer);
      if (typeof ack.status === 'string') ack.status = ack.status.toUpperCase();
      writeJson(answer, ack);
    },
  },
  {
    id: 'D-PRED-IDS-SWAPPED',
    area: 'predictions',
    description:
      "The prediction read builds its answer positionally from a row whose columns were reordered: `image_id` holds the model's id and `model_id` the image's",
    violates:
      'Prediction fields `image_id` and `model_id` (the ones of `POST /predict` `{image_id, model_id}`)',
    statedIn: 'interface',
    response: editRead((prediction) => {
      [prediction.image_id, prediction.model_id] = [prediction.model_id, prediction.image_id];
    }),
  },
  {
    id: 'D-PRED-CELL-COUNT-STRING',
    area: 'predictions',
    description:
      '`cell_count` comes from a numeric column the driver returns as a string: `"20"` instead of 20',
    violates: 'Prediction field `cell_count`: "integer | number of ROIs detected; only once `COMPLETED`"',
    statedIn: 'interface',
    response: editRead((prediction) => {
      if (typeof prediction.cell_count === 'number') prediction.cell_count = String(prediction.cell_count);
    }),
  },
  {
    id: 'D-PRED-CREATED-AT-EPOCH',
    area: 'predictions',
    description:
      "The prediction's `created_at` is the queue's enqueue timestamp, in epoch seconds (a number), not an ISO 8601 string",
    violates: '"Timestamps are ISO 8601 date-time strings."',
    statedIn: 'interface',
    response: editRead((prediction) => {
      if (typeof prediction.created_at === 'string')
        prediction.created_at = Math.floor(Date.parse(prediction.created_at) / 1000);
    }),
  },
  {
    id: 'D-PRED-NOT-READY-ACCEPTED',
    area: 'predictions',
    description:
      'Predict checks only that the image exists: an image still uploading or processing is queued, answered `submitted`, and the run then FAILS on missing pixels',
    violates: '"Only a `ready` image can be passed to `POST /predict`."',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'GET', READ);
      const fake = found && memoMap<string, Record<string, unknown>>(state, 'not-ready-runs').get(found[1]);
      if (fake) return jsonAnswer(200, fake);
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status < 400) return;
      if (!/is not ready/i.test(detailOf(answer))) return;
      const request = JSON.parse(exchange.body.toString('utf8')) as { image_id: string; model_id: string };
      const predictionId = randomUUID();
      memoMap<string, Record<string, unknown>>(state, 'not-ready-runs').set(predictionId, {
        prediction_id: predictionId,
        image_id: request.image_id,
        model_id: request.model_id,
        created_at: new Date().toISOString(),
        status: 'FAILED',
        error: 'Image pixels not found',
      });
      answer.status = 200;
      writeJson(answer, {
        prediction_id: predictionId,
        status: 'submitted',
        reason: 'Queued for segmentation.',
      });
    },
  },
  {
    id: 'D-PRED-STATUS-CACHED',
    area: 'predictions',
    description:
      'The prediction read is cached for ten minutes by id, whatever its status: a run first read SUBMITTED or STARTED stays so for every poll of the next ten minutes',
    violates: '"Poll `GET /predict/{prediction_id}` until `status` is `COMPLETED` (or `FAILED`)."',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'GET', READ);
      if (!found) return;
      const held = memoMap<string, { at: number; answer: ReturnType<typeof copyAnswer>; key: string }>(
        state,
        'prediction-cache',
      ).get(found[1]);
      if (held && Date.now() - held.at < 600_000 && held.key === exchange.headers.get('authorization'))
        return copyAnswer(held.answer);
    },
    response(exchange, answer, state) {
      const found = match(exchange, 'GET', READ);
      if (!found || answer.status !== 200) return;
      memoMap<string, unknown>(state, 'prediction-cache').set(found[1], {
        at: Date.now(),
        answer: copyAnswer(answer),
        key: exchange.headers.get('authorization'),
      });
    },
  },
  {
    id: 'D-PRED-SKIPPED-OTHER-MODEL',
    area: 'predictions',
    description:
      "The duplicate check keys on the image alone: a predict with another model on an image whose run is still in flight answers `skipped` with that run's id, and the second model never runs",
    violates:
      'Prediction acknowledgement `status`: "`skipped` when an identical prediction is already in flight" (`POST /predict` body `{image_id, model_id}`)',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      let body: { image_id?: unknown; model_id?: unknown };
      try {
        body = JSON.parse(exchange.body.toString('utf8')) as typeof body;
      } catch {
        return;
      }
      if (typeof body.image_id !== 'string') return;
      const key = exchange.headers.get('authorization') ?? '';
      const last = memoMap<string, { predictionId: string; modelId: unknown }>(state, 'run-of-image').get(
        `${key} ${body.image_id.toLowerCase()}`,
      );
      if (!last || last.modelId === body.model_id) return;
      const read = await state.upstream('GET', `/api/v1/predict/${last.predictionId}`, {
        key: key.replace(/^Bearer\s+/i, ''),
      });
      if (read.status !== 200 || !isJson(read)) return;
      if (!['SUBMITTED', 'STARTED'].includes(String(readJson(read).status))) return;
      return jsonAnswer(200, {
        prediction_id: last.predictionId,
        status: 'skipped',
        reason: 'An identical prediction is already in progress.',
      });
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 200 || !isJson(answer))
        return;
      const ack = readJson<{ prediction_id: string; status: string }>(answer);
      if (ack.status !== 'submitted') return;
      const body = JSON.parse(exchange.body.toString('utf8')) as { image_id: string; model_id: unknown };
      memoMap<string, { predictionId: string; modelId: unknown }>(state, 'run-of-image').set(
        `${exchange.headers.get('authorization') ?? ''} ${body.image_id.toLowerCase()}`,
        { predictionId: ack.prediction_id, modelId: body.model_id },
      );
    },
  },
  {
    id: 'D-PRED-READ-NON-UUID-404',
    area: 'predictions',
    description:
      'GET /predict/{id} takes the id as plain text and looks it up: a non-UUID id answers 404 "Prediction not found" instead of 422',
    violates: '**GET `/api/v1/predict/{prediction_id}`** "Errors: 401, 404, 422 (non-UUID id)."',
    statedIn: 'interface',
    response(exchange, answer) {
      const found = match(exchange, 'GET', READ);
      if (found && !isUuid(found[1]) && answer.status === 422) {
        answer.status = 404;
        writeJson(answer, { detail: 'Prediction not found' });
      }
    },
  },
];
