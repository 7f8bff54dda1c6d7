import { randomUUID } from 'node:crypto';
import type { Regression } from '../regression.js';
import { jsonAnswer, match, memoMap, writeJson } from '../edit-helpers.js';
import { okJson, orgOf, requestJson } from './kit.js';

const UUID = '([0-9a-fA-F-]{36})';
const READ = new RegExp(`^/api/v1/predict/${UUID}$`);

interface Phantom {
  image_id: string;
  model_id: string;
  created_at: string;
}

/** Predict and the prediction read. */
export const PREDICTIONS: Regression[] = [
  {
    id: 'I-PRED-ID-DETERMINISTIC',
    area: 'predictions',
    description:
      'Prediction ids are uuid5(organization, image, model) "for idempotency": a fresh run of an image and model that already ran answers the earlier run\'s `prediction_id`, whose poll shows the old COMPLETED result, and the new run is never seen',
    violates:
      '"`status` | string | `submitted` for a fresh run; `skipped` when an identical prediction is already in flight" and "`prediction_id` | uuid | the one to poll"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      const ack = okJson(answer);
      if (ack?.status !== 'submitted') return;
      const body = requestJson(exchange);
      const key = `${orgOf(exchange, state)?.id}:${String(body.image_id).toLowerCase()}:${String(body.model_id).toLowerCase()}`;
      const first = memoMap<string, string>(state, 'deterministic-id');
      const earlier = first.get(key);
      if (!earlier) first.set(key, String(ack.prediction_id));
      else writeJson(answer, { ...ack, prediction_id: earlier });
    },
  },
  {
    id: 'I-PRED-FAILED-IMAGE-ACCEPTED',
    area: 'predictions',
    description:
      'Predict refuses images `uploading` or `processing` and forgot `failed`: an aborted or unconvertible image is queued (`submitted`) and its run then reads FAILED "Image has no converted pixels", instead of the refusal up front',
    violates: '"Only a `ready` image can be passed to `POST /predict`."',
    statedIn: 'interface',
    request(exchange, state) {
      const read = match(exchange, 'GET', READ);
      const phantom = read && memoMap<string, Phantom>(state, 'phantom').get(read[1].toLowerCase());
      if (!read || !phantom) return;
      return jsonAnswer(200, {
        prediction_id: read[1].toLowerCase(),
        ...phantom,
        status: 'FAILED',
        error: 'Image has no converted pixels',
      });
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 422) return;
      if (!answer.body.toString('utf8').includes("upload_status is 'failed'")) return;
      const body = requestJson(exchange);
      const id = randomUUID();
      memoMap<string, Phantom>(state, 'phantom').set(id, {
        image_id: String(body.image_id).toLowerCase(),
        model_id: String(body.model_id).toLowerCase(),
        created_at: new Date().toISOString(),
      });
      answer.status = 200;
      writeJson(answer, { prediction_id: id, status: 'submitted', reason: 'Queued for segmentation.' });
    },
  },
  {
    id: 'I-PRED-READ-ECHOES-PATH-ID',
    area: 'predictions',
    description:
      'The prediction read fills `prediction_id` from the path parameter as the client wrote it: polled with the id in upper case (a .NET Guid, accepted), it answers `prediction_id` in upper case, which no longer equals the id the acknowledgement gave',
    violates: 'x-http-conventions.ids: "every response carries the canonical lower-case form"',
    statedIn: 'document',
    response(exchange, answer) {
      const read = match(exchange, 'GET', READ);
      const body = read ? okJson(answer) : null;
      if (!read || !body || read[1] === read[1].toLowerCase()) return;
      writeJson(answer, { ...body, prediction_id: read[1] });
    },
  },
  {
    id: 'I-PRED-COMPLETED-DROPS-MODEL-ID',
    area: 'predictions',
    description:
      'Once a run is COMPLETED the read is served from the segmentation row, which has no model column: the completed prediction answers without `model_id` (it is there while SUBMITTED and STARTED)',
    violates:
      'the Prediction fields "`model_id` | uuid" beside `segmentation_id` and `cell_count` ("only once `COMPLETED`"): every prediction carries its `model_id`',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', READ)) return;
      const body = okJson(answer);
      if (body?.status !== 'COMPLETED') return;
      const { model_id: _dropped, ...rest } = body;
      writeJson(answer, rest);
    },
  },
];
