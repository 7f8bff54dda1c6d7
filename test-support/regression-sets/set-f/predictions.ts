import { bearer, caller, isJson, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Regression } from '../regression.js';
import { PREDICT, PREDICTION, requestJson } from './shared.js';

interface PredictBody {
  image_id?: unknown;
  model_id?: unknown;
}

interface Ack {
  prediction_id: string;
  status: string;
}

function ackOf(answer: Answer): Ack | undefined {
  if (answer.status !== 200 || !isJson(answer)) return undefined;
  return readJson<Ack>(answer);
}

/** Starting a run and polling it. */
export const PREDICTION_REGRESSIONS: Regression[] = [
  {
    id: 'F-PRED-FIRST-POLL-404',
    area: 'predictions',
    description:
      'Prediction reads go to a read replica that lags the primary by about a second: a poll sent right after POST /predict answers 404 "Prediction not found" for the id just acknowledged',
    violates:
      '"`prediction_id` | uuid | the one to poll" / "Poll `GET /predict/{prediction_id}` until `status` is `COMPLETED` (or `FAILED`)."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const acked = memoMap<string, number>(state, 'acked');
      if (match(exchange, 'POST', PREDICT)) {
        const ack = ackOf(answer);
        if (ack?.status === 'submitted') acked.set(ack.prediction_id.toLowerCase(), Date.now());
        return;
      }
      const read = match(exchange, 'GET', PREDICTION);
      const at = read ? acked.get(read[1].toLowerCase()) : undefined;
      if (!read || at === undefined || answer.status !== 200) return;
      acked.delete(read[1].toLowerCase());
      if (Date.now() - at < 1500) Object.assign(answer, jsonAnswer(404, { detail: 'Prediction not found' }));
    },
  },
  {
    id: 'F-PRED-COUNT-LAGS-COMPLETED',
    area: 'predictions',
    description:
      'The worker sets COMPLETED and the segmentation id in one update and the ROI count in a second one: the first read that says COMPLETED has no `cell_count`',
    violates: '"The completed response carries `segmentation_id` and `cell_count`."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const read = match(exchange, 'GET', PREDICTION);
      if (!read || answer.status !== 200 || !isJson(answer)) return;
      const prediction = readJson<{ prediction_id: string; status: string }>(answer);
      const seen = memoMap<string, boolean>(state, 'completed');
      if (prediction.status !== 'COMPLETED' || seen.has(prediction.prediction_id)) return;
      seen.set(prediction.prediction_id, true);
      writeJson(answer, { ...prediction, cell_count: undefined });
    },
  },
  {
    id: 'F-PRED-IDS-ECHOED-AS-SENT',
    area: 'predictions',
    description:
      'The prediction row keeps `image_id` and `model_id` as the client wrote them: ids sent in upper case (accepted) are answered in upper case by every read of the prediction',
    violates:
      'x-http-conventions.ids: "Ids are UUIDs compared case-insensitively ... every response carries the canonical lower-case form."',
    statedIn: 'document',
    response(exchange, answer, state) {
      const sent = memoMap<string, PredictBody>(state, 'sent');
      if (match(exchange, 'POST', PREDICT)) {
        const ack = ackOf(answer);
        const body = requestJson<PredictBody>(exchange);
        if (ack && body && !sent.has(ack.prediction_id)) sent.set(ack.prediction_id, body);
        return;
      }
      const read = match(exchange, 'GET', PREDICTION);
      if (!read || answer.status !== 200 || !isJson(answer)) return;
      const prediction = readJson<{ prediction_id: string }>(answer);
      const body = sent.get(prediction.prediction_id);
      if (body) writeJson(answer, { ...prediction, image_id: body.image_id, model_id: body.model_id });
    },
  },
  {
    id: 'F-PRED-422-NAMES-IMAGE-ID',
    area: 'predictions',
    description:
      'Predict validates both ids in one try block whose message is fixed to the first field: a malformed `model_id` is refused 422 with a detail that blames `image_id`',
    violates:
      "components.responses.ValidationErrorString: a string `detail` that names the bad id (`image_id: 'not-a-uuid' is not a valid UUID`)",
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 422 || !isJson(answer)) return;
      const { detail } = readJson<{ detail: unknown }>(answer);
      if (typeof detail !== 'string' || !detail.startsWith('model_id:')) return;
      const body = requestJson<PredictBody>(exchange);
      writeJson(answer, { detail: `image_id: '${String(body?.image_id)}' is not a valid UUID` });
    },
  },
  {
    id: 'F-PRED-READ-UPPERCASE-404',
    area: 'predictions',
    description:
      'GET /predict/{id} compares the path id as text with the stored lower-case id: the id in upper case (as a .NET Guid prints it) answers 404 "Prediction not found"',
    violates: 'x-http-conventions.ids: "Ids are UUIDs compared case-insensitively"',
    statedIn: 'document',
    request(exchange) {
      const read = match(exchange, 'GET', PREDICTION);
      if (read && /[A-F]/.test(read[1])) return jsonAnswer(404, { detail: 'Prediction not found' });
    },
  },
  {
    id: 'F-PRED-SKIPPED-SAME-MODEL',
    area: 'predictions',
    description:
      "The duplicate check looks for a run in flight of the same model in the organization and forgot the image: a predict on a second image while the first is still running answers `skipped` with the first run's id",
    violates:
      '"`status` | string | `submitted` for a fresh run; `skipped` when an identical prediction is already in flight"',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const body = requestJson<PredictBody>(exchange);
      const org = caller(exchange, state);
      if (!body || !org || typeof body.model_id !== 'string') return;
      const running = memoMap<string, { id: string; image: string }>(state, 'running');
      const run = running.get(`${org.id} ${body.model_id.toLowerCase()}`);
      if (!run || run.image === String(body.image_id).toLowerCase()) return;
      const now = await state.upstream('GET', `/api/v1/predict/${run.id}`, { key: bearer(exchange) });
      const status = now.status === 200 ? readJson<{ status: string }>(now).status : '';
      if (!['SUBMITTED', 'STARTED'].includes(status)) return;
      const reason = `An identical prediction (same image and model) is already ${status}; poll it instead.`;
      return jsonAnswer(200, { prediction_id: run.id, status: 'skipped', reason });
    },
    response(exchange, answer, state) {
      const ack = match(exchange, 'POST', PREDICT) && ackOf(answer);
      const body = requestJson<PredictBody>(exchange);
      const org = caller(exchange, state);
      if (!ack || ack.status !== 'submitted' || !org || typeof body?.model_id !== 'string') return;
      memoMap<string, { id: string; image: string }>(state, 'running').set(
        `${org.id} ${body.model_id.toLowerCase()}`,
        {
          id: ack.prediction_id,
          image: String(body.image_id).toLowerCase(),
        },
      );
    },
  },
];
