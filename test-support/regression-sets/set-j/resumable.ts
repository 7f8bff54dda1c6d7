import type { Exchange, Regression } from '../regression.js';
import { bearer, jsonAnswer, match, memoMap, pathname } from '../edit-helpers.js';
import {
  bodyJson,
  canonicalId,
  editImages,
  errorAnswer,
  imageReadId,
  notReadyDetail,
  replaceAnswer,
  requestJson,
  ROUTES,
} from './kit.js';

/** The image a complete names, canonical, or ''. */
function completed(exchange: Exchange): string {
  return canonicalId(match(exchange, 'POST', ROUTES.complete)?.[1]);
}

/** Whether a complete asked for an explicit subset (a non-empty `parts`) rather than discovery. */
function explicitParts(exchange: Exchange): boolean {
  const parts = requestJson(exchange).parts;
  return Array.isArray(parts) && parts.length > 0;
}

/** A refusal of complete that is about the parts (not the image's state, not a malformed request). */
function partsRefusal(detail: unknown): detail is string {
  return typeof detail === 'string' && !/not uploading|upload_status/i.test(detail);
}

/** The image id of a predict request, canonical, or ''. */
function predicted(exchange: Exchange): string {
  if (!match(exchange, 'POST', ROUTES.predict)) return '';
  return canonicalId(requestJson(exchange).image_id);
}

/** Set J, the resumable flow. */
export const RESUMABLE: Regression[] = [
  {
    id: 'J-RES-READY-KEEPS-REFUSAL-ERROR',
    area: 'resumable',
    description:
      'A complete refused for its parts (a wrong ETag, a part not uploaded) writes its reason into `upload_error` for the dashboard and nothing clears it: the image reads `uploading` with an `upload_error`, and once a later complete succeeds, `ready` with the stale error still set',
    violates: '"`upload_error` | string | reason, present when `upload_status` is `failed`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const errors = memoMap<string, string>(state, 'refusal-error');
      const id = completed(exchange);
      if (id && answer.status === 422) {
        const detail = bodyJson(answer)?.detail;
        if (partsRefusal(detail)) errors.set(id, detail);
        return;
      }
      const read = imageReadId(exchange);
      const error = errors.get(read);
      if (!error) return;
      editImages(answer, (image) => {
        if (image.upload_status === 'failed') return false;
        image.upload_error = error;
        return true;
      });
    },
  },
  {
    id: 'J-RES-EXPLICIT-PARTS-NEVER-CONVERTED',
    area: 'resumable',
    description:
      'Complete with an explicit `parts` list assembles them and answers 202, but that branch never enqueues the conversion job (only the discovery branch does): the image stays `processing` for ever, and predict refuses it as not ready',
    violates:
      '"`uploading` | `POST /upload/{image_id}/complete` | parts assembled | `processing` | async conversion starts; returns 202"',
    statedIn: 'interface',
    request(exchange, state) {
      const image = predicted(exchange);
      if (image && memoMap<string, true>(state, 'never-converted').has(image))
        return errorAnswer(422, notReadyDetail(image));
    },
    response(exchange, answer, state) {
      const stuck = memoMap<string, true>(state, 'never-converted');
      const id = completed(exchange);
      if (id && answer.status === 202 && explicitParts(exchange)) stuck.set(id, true);
      if (!stuck.has(imageReadId(exchange))) return;
      editImages(answer, (image) => {
        Object.assign(image, { upload_status: 'processing', shape: null, processed_at: null });
        delete image.upload_error;
        return true;
      });
    },
  },
  {
    id: 'J-RES-PREDICT-STALE-NOT-READY',
    area: 'resumable',
    description:
      'Predict checks readiness in each instance\'s cache of image statuses, filled at complete (`processing`) and kept for a minute: for a minute after a resumable upload is completed, predict refuses the image 422 "not ready" although GET /upload/{id} already answers `ready`',
    violates:
      '"`processing` | conversion finishes | | `ready` | `shape` populated; image usable in `POST /predict`"',
    statedIn: 'interface',
    request(exchange, state) {
      const image = predicted(exchange);
      const at = memoMap<string, number>(state, 'completed-at').get(image);
      if (at !== undefined && Date.now() - at < 60_000) return errorAnswer(422, notReadyDetail(image));
    },
    response(exchange, answer, state) {
      const id = completed(exchange);
      if (id && answer.status === 202) memoMap<string, number>(state, 'completed-at').set(id, Date.now());
    },
  },
  {
    id: 'J-RES-DISCOVERY-SHORT-ACCEPTED',
    area: 'resumable',
    description:
      'Complete with no body lists the parts found in storage and assembles them without comparing their total with the declared `size`: an upload with a part missing (or none PUT) is answered 202, and its conversion then fails (`failed`, "truncated"), where a 422 would have left it `uploading` for the client to PUT the rest',
    violates:
      'completeUpload (x-assumed): "The parts assembled must add up to the `size` the image was opened with ... Every refusal is a 422 ... the image stays `uploading` with its parts"',
    statedIn: 'document',
    async response(exchange, answer, state) {
      const truncated = memoMap<string, true>(state, 'truncated');
      const id = completed(exchange);
      if (id && answer.status === 422 && !explicitParts(exchange) && partsRefusal(bodyJson(answer)?.detail)) {
        const aborted = await state.upstream('POST', pathname(exchange).replace(/\/complete$/, '/abort'), {
          key: bearer(exchange),
        });
        if (aborted.status !== 200) return;
        truncated.set(id, true);
        replaceAnswer(answer, jsonAnswer(202, { status: 'processing' }));
        return;
      }
      if (!truncated.has(imageReadId(exchange))) return;
      editImages(answer, (image) => {
        if (image.upload_status !== 'failed') return false;
        image.upload_error = `truncated: the parts assembled hold fewer than the ${String(image.size)} bytes declared`;
        return true;
      });
    },
  },
];
