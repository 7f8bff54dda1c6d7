import { randomUUID } from 'node:crypto';
import { caller, isJson, jsonAnswer, match, memoMap, others, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';

interface Prediction {
  prediction_id: string;
  status: string;
  segmentation_id?: string;
  cell_count?: number;
  error?: string;
}

const PREDICT = /^\/api\/v1\/predict$/;
const PREDICTION = /^\/api\/v1\/predict\/([^/]+)$/;

/** A base model every organization has (the document's example of `model_id`). */
const BASE_MODEL_ID = '078e62ee-4b5a-4a1e-8322-01910425db58';

/** Starting a prediction and polling it through its states. */
export const PREDICTION_REGRESSIONS: Regression[] = [
  {
    id: 'B-PRED-STATUS-OTHER-ORG',
    area: 'predictions',
    description:
      "GET /predict/{id} looks the prediction up by id alone: another organization's prediction is answered 200",
    violates:
      '"All resources are confined to the organization that owns the API key; a resource outside it is reported as 404."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const theirs = await state.upstream('GET', exchange.path, { key: org.key });
        if (theirs.status === 200) return void Object.assign(answer, theirs);
      }
    },
  },
  {
    id: 'B-PRED-CELL-COUNT-RENAMED',
    area: 'predictions',
    description:
      "The completed prediction carries the count as `roi_count` (the worker's name) instead of `cell_count`",
    violates: '"The completed response carries `segmentation_id` and `cell_count`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200 || !isJson(answer)) return;
      const { cell_count, ...rest } = readJson<Prediction>(answer);
      if (cell_count === undefined) return;
      writeJson(answer, { ...rest, roi_count: cell_count });
    },
  },
  {
    id: 'B-PRED-SEGMENTATION-ID-EARLY',
    area: 'predictions',
    description:
      'The segmentation id is allocated when the prediction is queued and shown while it is SUBMITTED or STARTED',
    violates: '"`segmentation_id` | uuid | only once `COMPLETED`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const found = match(exchange, 'GET', PREDICTION);
      if (!found || answer.status !== 200 || !isJson(answer)) return;
      const prediction = readJson<Prediction>(answer);
      if (prediction.status !== 'SUBMITTED' && prediction.status !== 'STARTED') return;
      const allocated = memoMap<string, string>(state, 'segmentations');
      if (!allocated.has(found[1])) allocated.set(found[1], randomUUID());
      writeJson(answer, { ...prediction, segmentation_id: allocated.get(found[1]) });
    },
  },
  {
    id: 'B-PRED-STATUS-LOWERCASE',
    area: 'predictions',
    description:
      'GET /predict/{id} answers the status in lower case (`completed`), as the acknowledgement does',
    violates: '"`status` | enum | `SUBMITTED`, `STARTED`, `COMPLETED`, `FAILED`"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200 || !isJson(answer)) return;
      const prediction = readJson<Prediction>(answer);
      writeJson(answer, { ...prediction, status: prediction.status.toLowerCase() });
    },
  },
  {
    id: 'B-PRED-SKIPPED-WRONG-ID',
    area: 'predictions',
    description:
      'A duplicate predict is answered `skipped` with the id of the request just refused, not of the run in flight: polling it answers 404',
    violates:
      '"`prediction_id` | uuid | the one to poll" / "`skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 200 || !isJson(answer)) return;
      const ack = readJson<Prediction>(answer);
      if (ack.status !== 'skipped') return;
      writeJson(answer, { ...ack, prediction_id: randomUUID() });
    },
  },
  {
    id: 'B-PRED-OTHER-ORG-CUSTOM-MODEL',
    area: 'predictions',
    description:
      "POST /predict checks the model exists but not whose it is: another organization's custom model runs (as the base model)",
    violates:
      '"Body: `{image_id: uuid, model_id: uuid}`, both required. Both are organization-scoped." / "404 (image or model outside the organization or missing)"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const me = caller(exchange, state);
      let body: { model_id?: unknown };
      try {
        body = JSON.parse(exchange.body.toString('utf8')) as { model_id?: unknown };
      } catch {
        return;
      }
      const theirs = others(exchange, state).some((org) =>
        org.customModelIds.includes(String(body.model_id)),
      );
      if (!theirs || me?.customModelIds.includes(String(body.model_id))) return;
      exchange.body = Buffer.from(JSON.stringify({ ...body, model_id: BASE_MODEL_ID }));
    },
  },
  {
    id: 'B-PRED-422-DETAIL-ARRAY',
    area: 'predictions',
    description:
      "POST /predict with a non-UUID id answers the framework's validation array, as upload does, instead of a string `detail`",
    violates:
      '"Validation errors (422) on some endpoints instead carry `detail` as an array ...; on others (predict, prediction status, shares) `detail` is a string."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 422 || !isJson(answer)) return;
      const { detail } = readJson<{ detail: unknown }>(answer);
      if (typeof detail !== 'string') return;
      Object.assign(
        answer,
        jsonAnswer(422, {
          detail: [{ loc: ['body', 'image_id'], msg: detail, type: 'uuid_parsing', input: null, ctx: {} }],
        }),
      );
    },
  },
  {
    id: 'B-PRED-FAILED-NO-ERROR',
    area: 'predictions',
    description: "A FAILED prediction says nothing of why: the worker's message is not copied into `error`",
    violates: 'Prediction.error (x-assumed): "Prediction failure: `status: FAILED` plus an `error` string"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PREDICTION) || answer.status !== 200 || !isJson(answer)) return;
      const { error, ...prediction } = readJson<Prediction>(answer);
      if (prediction.status !== 'FAILED' || error === undefined) return;
      writeJson(answer, prediction);
    },
  },
];
