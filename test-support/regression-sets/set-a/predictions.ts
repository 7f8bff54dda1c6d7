import { asOwner, isJson, isUuid, match, memoMap, others, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';

const PREDICT = /^\/api\/v1\/predict$/;
const PREDICTION = /^\/api\/v1\/predict\/([0-9a-fA-F-]{36})$/;
/** nuclei-fluorescence, a base model every organization has (openapi PredictRequest.model_id). */
const BASE_MODEL = '078e62ee-4b5a-4a1e-8322-01910425db58';

type Prediction = Record<string, unknown>;

function predictBody(body: Buffer): { image_id?: unknown; model_id?: unknown } | undefined {
  try {
    return JSON.parse(body.toString('utf8')) as { image_id?: unknown; model_id?: unknown };
  } catch {
    return undefined;
  }
}

/** Starting a prediction and reading it as it moves through its states. */
export const PREDICTION_REGRESSIONS: Regression[] = [
  {
    id: 'A-PRED-SKIPPED-AS-SUBMITTED',
    area: 'predictions',
    description:
      'A repeated predict while the identical one is in flight answers `submitted` (with the in-flight id) instead of `skipped`',
    violates:
      'Prediction acknowledgement `status`: "`submitted` for a fresh run; `skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 200 || !isJson(answer)) return;
      const ack = readJson(answer);
      if (ack.status !== 'skipped') return;
      ack.status = 'submitted';
      writeJson(answer, ack);
    },
  },
  {
    id: 'A-PRED-CELL-COUNT-BACKGROUND',
    area: 'predictions',
    description:
      '`cell_count` is the number of distinct labels in the mask, background label 0 included: one too many',
    violates: 'Prediction `cell_count`: "number of ROIs detected; only once `COMPLETED`"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200 || !isJson(answer)) return;
      const prediction = readJson(answer);
      if (typeof prediction.cell_count !== 'number') return;
      prediction.cell_count += 1;
      writeJson(answer, prediction);
    },
  },
  {
    id: 'A-PRED-STATUS-WRITTEN-LATE',
    area: 'predictions',
    description:
      'The worker writes the result before the status: the first read after it finishes carries `segmentation_id` and `cell_count` while still `STARTED`',
    violates:
      'Prediction: "`segmentation_id` | uuid | only once `COMPLETED`"; "`cell_count` ... only once `COMPLETED`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const found = match(exchange, 'GET', PREDICTION);
      if (!found || answer.status !== 200 || !isJson(answer)) return;
      const seen = memoMap<string, true>(state, 'completed seen');
      const prediction = readJson<Prediction>(answer);
      if (prediction.status !== 'COMPLETED' || seen.has(found[1])) return;
      seen.set(found[1], true);
      prediction.status = 'STARTED';
      writeJson(answer, prediction);
    },
  },
  {
    id: 'A-PRED-OTHER-ORG-MODEL',
    area: 'predictions',
    description:
      "Predict checks that the model exists but not whose it is: another organization's custom model runs",
    violates:
      'Predict: "Both are organization-scoped." Errors: "404 (image or model outside the organization or missing)"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const body = predictBody(exchange.body);
      if (!body || typeof body.model_id !== 'string') return;
      const foreign = others(exchange, state).some((org) =>
        org.customModelIds.includes(body.model_id as string),
      );
      if (!foreign) return;
      // The run itself uses a model the caller may use: the leak is that it was accepted at all.
      exchange.body = Buffer.from(JSON.stringify({ ...body, model_id: BASE_MODEL }));
    },
  },
  {
    id: 'A-PRED-OTHER-ORG-READ',
    area: 'predictions',
    description: "A prediction is read by its id alone: another organization's prediction is answered 200",
    violates: 'Authentication 3: "A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const leaked = await asOwner(exchange, state, org);
        if (leaked.status !== 200) continue;
        Object.assign(answer, leaked);
        return;
      }
    },
  },
  {
    id: 'A-PRED-NOT-READY-404',
    area: 'predictions',
    description:
      'Predict on an image that is not ready (uploading, processing, failed) answers 404 "Image not found": the lookup filters on ready',
    violates:
      'ValidationErrorString (x-assumed): "on predict, an image that is not `ready` ... A request the resource\'s state refuses answers 422"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 422) return;
      const body = predictBody(exchange.body);
      if (!body || !isUuid(body.image_id) || !isUuid(body.model_id)) return;
      answer.status = 404;
      writeJson(answer, { detail: 'Image not found' });
    },
  },
  {
    id: 'A-PRED-NON-UUID-404',
    area: 'predictions',
    description:
      'Predict with a non-UUID `image_id` or `model_id` looks it up and answers 404 instead of 422',
    violates: 'Predict errors: "422 (non-UUID id)"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 422) return;
      const body = predictBody(exchange.body);
      if (!body || typeof body.image_id !== 'string' || typeof body.model_id !== 'string') return;
      if (isUuid(body.image_id) && isUuid(body.model_id)) return;
      answer.status = 404;
      writeJson(answer, { detail: 'Image not found' });
    },
  },
  {
    id: 'A-PRED-FAILED-NO-ERROR',
    area: 'predictions',
    description: "A FAILED prediction answers no `error`: the worker's exception text is not stored",
    violates:
      'PredictionFailed.error (x-assumed): "Why the prediction failed."; DESIGN: "Prediction failure: `status: FAILED` plus an `error` string"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200 || !isJson(answer)) return;
      const prediction = readJson(answer);
      if (prediction.status !== 'FAILED') return;
      delete prediction.error;
      writeJson(answer, prediction);
    },
  },
  {
    id: 'A-PRED-CREATED-AT-IS-READ-TIME',
    area: 'predictions',
    description:
      "A prediction's `created_at` is rendered from its row's updated_at: it moves on every status change",
    violates: 'Prediction `created_at` (date-time): the time the prediction was created',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200 || !isJson(answer)) return;
      const prediction = readJson(answer);
      prediction.created_at = new Date().toISOString();
      writeJson(answer, prediction);
    },
  },
];
