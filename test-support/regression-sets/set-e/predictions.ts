import {
  caller,
  isJson,
  jsonAnswer,
  match,
  memoMap,
  pathname,
  readJson,
  writeJson,
} from '../edit-helpers.js';
import type { Exchange, Regression } from '../regression.js';

type Prediction = Record<string, unknown> & {
  prediction_id: string;
  status: string;
  image_id: string;
  model_id: string;
};

function predictBody(exchange: Exchange): Record<string, unknown> | undefined {
  if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return undefined;
  try {
    const body = JSON.parse(exchange.body.toString('utf8')) as unknown;
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ANY_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const PREDICTIONS: Regression[] = [
  {
    id: 'E-PRED-RESULT-CONSUMED',
    area: 'predictions',
    description:
      'The prediction read fetches a finished run from the result backend with a get-and-delete: the first read after it finished answers COMPLETED, every later read 404 "Prediction not found"',
    violates:
      '"Poll `GET /predict/{prediction_id}` until `status` is `COMPLETED` (or `FAILED`). The completed response carries `segmentation_id` and `cell_count`."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const read = match(exchange, 'GET', /^\/api\/v1\/predict\/([^/]+)$/);
      if (!read || answer.status !== 200) return;
      const consumed = memoMap<string, boolean>(state, 'consumed');
      const id = read[1].toLowerCase();
      if (consumed.has(id))
        return void Object.assign(answer, jsonAnswer(404, { detail: 'Prediction not found' }));
      const status = readJson<Prediction>(answer).status;
      if (status === 'COMPLETED' || status === 'FAILED') consumed.set(id, true);
    },
  },
  {
    id: 'E-PRED-SEGMENTATION-PER-IMAGE',
    area: 'predictions',
    description:
      "The worker upserts the segmentation on the image id: a second completed prediction of the same image (another model) answers the first run's `segmentation_id` and `cell_count`",
    violates:
      '"Identified by `segmentation_id` (uuid), produced by a completed prediction." / "The completed response carries `segmentation_id` and `cell_count`."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/predict\/[^/]+$/) || answer.status !== 200) return;
      const prediction = readJson<Prediction>(answer);
      if (prediction.status !== 'COMPLETED') return;
      const first = memoMap<string, { prediction: string; segmentation: unknown; count: unknown }>(
        state,
        'per-image',
      );
      const held = first.get(prediction.image_id);
      if (!held) {
        first.set(prediction.image_id, {
          prediction: prediction.prediction_id,
          segmentation: prediction.segmentation_id,
          count: prediction.cell_count,
        });
        return;
      }
      if (held.prediction === prediction.prediction_id) return;
      prediction.segmentation_id = held.segmentation;
      prediction.cell_count = held.count;
      writeJson(answer, prediction);
    },
  },
  {
    id: 'E-PRED-FAILED-CELL-COUNT-ZERO',
    area: 'predictions',
    description:
      "The prediction row's `cell_count` column defaults to 0 and the renderer writes it whenever it is not null: a FAILED prediction answers `cell_count: 0`",
    violates: '"`cell_count` | integer | number of ROIs detected; only once `COMPLETED`"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', /^\/api\/v1\/predict\/[^/]+$/) || answer.status !== 200) return;
      const prediction = readJson<Prediction>(answer);
      if (prediction.status !== 'FAILED' || 'cell_count' in prediction) return;
      prediction.cell_count = 0;
      writeJson(answer, prediction);
    },
  },
  {
    id: 'E-PRED-UPPERCASE-ID-404',
    area: 'predictions',
    description:
      'Predict compares `image_id` and `model_id` as text with the stored lower-case ids: the same ids in upper case answer 404 "Image not found" / "Model not found"',
    violates: 'x-http-conventions.ids: "Ids are UUIDs compared case-insensitively"',
    statedIn: 'document',
    request(exchange) {
      const body = predictBody(exchange);
      if (!body) return;
      const upper = (v: unknown) => typeof v === 'string' && ANY_UUID.test(v) && !LOWER_UUID.test(v);
      if (upper(body.image_id)) return jsonAnswer(404, { detail: 'Image not found' });
      if (upper(body.model_id)) return jsonAnswer(404, { detail: 'Model not found' });
    },
  },
  {
    id: 'E-PRED-MISSING-FIELD-500',
    area: 'predictions',
    description:
      'Predict reads `body["model_id"]` / `body["image_id"]` without validating their presence: a body missing one of them raises a KeyError, answered 500',
    violates:
      '"Body: `{image_id: uuid, model_id: uuid}`, both required." / "422 | a path or body id is not a valid UUID (rejected before reaching storage)"',
    statedIn: 'interface',
    request(exchange) {
      const body = predictBody(exchange);
      if (!body) return;
      if (!('image_id' in body) || !('model_id' in body))
        return {
          status: 500,
          headers: { 'content-type': 'text/plain' },
          body: Buffer.from('Internal Server Error'),
        };
    },
  },
  {
    id: 'E-PRED-SKIPPED-AFTER-FAILED',
    area: 'predictions',
    description:
      "The duplicate check looks for an identical prediction that has not COMPLETED, FAILED ones included: retrying a failed run answers `skipped` with the failed run's id and nothing runs again",
    violates:
      '"`status` | string | `submitted` for a fresh run; `skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    request(exchange, state) {
      const body = predictBody(exchange);
      const org = caller(exchange, state);
      if (!body || !org) return;
      const failed = memoMap<string, string>(state, 'failed-runs').get(
        `${org.id}/${String(body.image_id).toLowerCase()}/${String(body.model_id).toLowerCase()}`,
      );
      if (failed)
        return jsonAnswer(200, {
          prediction_id: failed,
          status: 'skipped',
          reason: 'An identical prediction (same image and model) already exists; poll it instead.',
        });
    },
    response(exchange, answer, state) {
      const org = caller(exchange, state);
      if (!org || !match(exchange, 'GET', /^\/api\/v1\/predict\/[^/]+$/) || answer.status !== 200) return;
      const p = readJson<Prediction>(answer);
      if (p.status === 'FAILED')
        memoMap<string, string>(state, 'failed-runs').set(
          `${org.id}/${p.image_id}/${p.model_id}`,
          p.prediction_id,
        );
    },
  },
  {
    id: 'E-PRED-EXPORTS-LAG-COMPLETED',
    area: 'predictions',
    description:
      'The worker marks the run COMPLETED before the result files are uploaded: for about three seconds after `segmentation_id` is first answered, its exports answer 404 "Segmentation not found"',
    violates:
      '"`segmentation_id` | uuid | only once `COMPLETED`; pass to `/export/*` and `POST /shares`" / "All exports are for a completed segmentation"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const seen = memoMap<string, number>(state, 'completed-at');
      if (match(exchange, 'GET', /^\/api\/v1\/predict\/[^/]+$/) && answer.status === 200 && isJson(answer)) {
        const p = readJson<Prediction>(answer);
        if (typeof p.segmentation_id === 'string' && !seen.has(p.segmentation_id))
          seen.set(p.segmentation_id, Date.now());
        return;
      }
      const exp = pathname(exchange).match(/^\/api\/v1\/export\/([^/]+)\//);
      if (!exp || exchange.method !== 'GET' || answer.status >= 400) return;
      const at = seen.get(exp[1].toLowerCase());
      if (at !== undefined && Date.now() - at < 3000)
        Object.assign(answer, jsonAnswer(404, { detail: 'Segmentation not found' }));
    },
  },
];
