import { randomUUID } from 'node:crypto';
import {
  asOwner,
  bearer,
  isJson,
  jsonAnswer,
  match,
  memoMap,
  others,
  readJson,
  writeJson,
} from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { BASE_MODEL_IDS, replaceAnswer, requestJson } from './tools.js';

/** Predictions: the acknowledgement and the prediction read. */

const PREDICT = /^\/api\/v1\/predict$/;
const PREDICTION = /^\/api\/v1\/predict\/([^/]+)$/;

type Prediction = Record<string, unknown> & { status?: string; model_id?: string; cell_count?: number };

export const PREDICTIONS: Regression[] = [
  {
    id: 'C-PRED-SKIPPED-AFTER-COMPLETED',
    area: 'predictions',
    description:
      'The duplicate check looks for any identical prediction that did not fail, finished ones included: predicting again after one COMPLETED answers `skipped` with the old id and runs nothing',
    violates: '"`skipped` when an identical prediction is already in flight" (`submitted` for a fresh run)',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const body = requestJson<{ image_id?: string; model_id?: string }>(exchange);
      const earlier = memoMap<string, string>(state, 'identical-predictions').get(
        `${bearer(exchange)}|${String(body?.image_id).toLowerCase()}|${String(body?.model_id).toLowerCase()}`,
      );
      if (!earlier) return;
      const read = await state.upstream('GET', `/api/v1/predict/${earlier}`, { key: bearer(exchange) });
      if (read.status !== 200 || readJson<Prediction>(read).status !== 'COMPLETED') return;
      return jsonAnswer(200, {
        prediction_id: earlier,
        status: 'skipped',
        reason: 'An identical prediction exists for this image and model.',
      });
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 200) return;
      const ack = readJson<{ prediction_id: string; status: string }>(answer);
      const body = requestJson<{ image_id?: string; model_id?: string }>(exchange);
      if (ack.status === 'submitted')
        memoMap<string, string>(state, 'identical-predictions').set(
          `${bearer(exchange)}|${String(body?.image_id).toLowerCase()}|${String(body?.model_id).toLowerCase()}`,
          ack.prediction_id,
        );
    },
  },
  {
    id: 'C-PRED-CUSTOM-MODEL-REPORTED-AS-BASE',
    area: 'predictions',
    description:
      "A prediction run with a custom model reports the id of the base model its weights derive from as `model_id` (the worker writes back the engine's model)",
    violates:
      '"Prediction | `model_id` | uuid" (the model the prediction was started with: "`{image_id: uuid, model_id: uuid}`")',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200) return;
      const prediction = readJson<Prediction>(answer);
      if (!prediction.model_id || BASE_MODEL_IDS.includes(prediction.model_id)) return;
      writeJson(answer, { ...prediction, model_id: BASE_MODEL_IDS[0] });
    },
  },
  {
    id: 'C-PRED-ZERO-CELLS-NO-COUNT',
    area: 'predictions',
    description:
      'The renderer adds `cell_count` only when it is truthy: a COMPLETED prediction that found no cell has no `cell_count`',
    violates: '"The completed response carries `segmentation_id` and `cell_count`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200) return;
      const prediction = readJson<Prediction>(answer);
      if (prediction.status !== 'COMPLETED' || prediction.cell_count !== 0) return;
      delete prediction.cell_count;
      writeJson(answer, prediction);
    },
  },
  {
    id: 'C-PRED-SUBMITTED-NOT-FOUND',
    area: 'predictions',
    description:
      'GET /predict/{id} reads the worker\'s status table, which has a row only once a worker picked the run up: a SUBMITTED prediction answers 404 "Prediction not found"',
    violates:
      '"`prediction_id` | uuid | the one to poll" / "Poll `GET /predict/{prediction_id}` until `status` is `COMPLETED` (or `FAILED`)."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200) return;
      if (readJson<Prediction>(answer).status !== 'SUBMITTED') return;
      replaceAnswer(answer, jsonAnswer(404, { detail: 'Prediction not found' }));
    },
  },
  {
    id: 'C-PRED-SKIPPED-NO-REASON',
    area: 'predictions',
    description:
      'A `skipped` acknowledgement leaves `reason` out (the serializer drops the field on that branch)',
    violates: '"`reason` | string | present in the shape"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 200) return;
      const ack = readJson(answer);
      if (ack.status !== 'skipped') return;
      delete ack.reason;
      writeJson(answer, ack);
    },
  },
  {
    id: 'C-PRED-UNKNOWN-MODEL-422',
    area: 'predictions',
    description:
      'A `model_id` that is a valid UUID but names no model at all is refused by the body validator with 422 instead of 404',
    violates: '"404 (image or model outside the organization or missing), 422 (non-UUID id)"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 404 || !isJson(answer)) return;
      const modelId = String(requestJson<{ model_id?: string }>(exchange)?.model_id).toLowerCase();
      const known = [...BASE_MODEL_IDS, ...state.organizations.flatMap((org) => org.customModelIds)];
      if (known.includes(modelId) || !/model/i.test(String(readJson(answer).detail))) return;
      replaceAnswer(answer, jsonAnswer(422, { detail: `model_id: no model ${modelId}` }));
    },
  },
  {
    id: 'C-PRED-OTHER-ORG-IMAGE',
    area: 'predictions',
    description:
      "POST /predict looks the image up by id alone: another organization's image is segmented for the caller, who polls the prediction and downloads its exports",
    violates:
      '"Body: `{image_id: uuid, model_id: uuid}`, both required. Both are organization-scoped." / "404 (image or model outside the organization or missing)"',
    statedIn: 'interface',
    async request(exchange, state) {
      const borrowed = memoMap<string, string>(state, 'borrowed-images');
      const key = bearer(exchange);
      const polled =
        match(exchange, 'GET', PREDICTION) ?? match(exchange, 'GET', /^\/api\/v1\/export\/([^/]+)\//);
      if (polled) {
        // What the run made is the caller's as far as the faulty lookup goes.
        const owner = borrowed.get(`${key}|${polled[1].toLowerCase()}`);
        const org = state.organizations.find((o) => o.key === owner);
        if (!org) return;
        const answer = await asOwner(exchange, state, org);
        const segmentationId =
          answer.status === 200 && isJson(answer)
            ? readJson<{ segmentation_id?: string }>(answer).segmentation_id
            : undefined;
        if (segmentationId) borrowed.set(`${key}|${segmentationId}`, org.key);
        return answer;
      }
      if (!match(exchange, 'POST', PREDICT)) return;
      const own = await state.resend(exchange);
      if (own.status !== 404 || !isJson(own) || !/image/i.test(String(readJson(own).detail))) return own;
      for (const org of others(exchange, state)) {
        const theirs = await asOwner(exchange, state, org);
        if (theirs.status !== 200) continue;
        const ack = readJson<{ prediction_id: string }>(theirs);
        borrowed.set(`${key}|${ack.prediction_id}`, org.key);
        return theirs;
      }
      return own;
    },
  },
  {
    id: 'C-PRED-FAILED-HAS-SEGMENTATION',
    area: 'predictions',
    description:
      'The worker creates the segmentation row before it runs and a failure leaves it: a FAILED prediction carries a `segmentation_id` (whose exports answer 404)',
    violates: '"`segmentation_id` | uuid | only once `COMPLETED`; pass to `/export/*` and `POST /shares`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const found = match(exchange, 'GET', PREDICTION);
      if (!found || answer.status !== 200) return;
      const prediction = readJson<Prediction>(answer);
      if (prediction.status !== 'FAILED' || prediction.segmentation_id) return;
      const allocated = memoMap<string, string>(state, 'allocated-segmentations');
      const segmentationId = allocated.get(found[1].toLowerCase()) ?? randomUUID();
      allocated.set(found[1].toLowerCase(), segmentationId);
      writeJson(answer, { ...prediction, segmentation_id: segmentationId });
    },
  },
];
