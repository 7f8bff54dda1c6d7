import { bearer, isJson, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';

const PREDICT = /^\/api\/v1\/predict$/;
const UPLOAD = /^\/api\/v1\/upload$/;
const CREATE_IMAGE = /^\/api\/v1\/image$/;
const ABORT = /^\/api\/v1\/upload\/([^/]+)\/abort$/;
const DELETE_IMAGE = /^\/api\/v1\/(upload|image)\/([^/]+)$/;

/** A request that counts against the storage cap. */
function takesSlot(exchange: Exchange): boolean {
  return Boolean(match(exchange, 'POST', UPLOAD) ?? match(exchange, 'POST', CREATE_IMAGE));
}

/** The storage cap, the monthly analysis cap (402), and the sandbox's abuse limits (429). */
export const CAP_REGRESSIONS: Regression[] = [
  {
    id: 'B-CAP-STORAGE-403-ON-CREATE',
    area: 'caps',
    description: 'Image-record creation answers the storage cap with 403 (a permission error) instead of 402',
    violates:
      '"402 | storage cap reached (upload, image-record creation)" / "returns 402 when the cap is reached, before any bytes are uploaded"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (match(exchange, 'POST', CREATE_IMAGE) && answer.status === 402) answer.status = 403;
    },
  },
  {
    id: 'B-CAP-ANALYSIS-AS-RATE-LIMIT',
    area: 'caps',
    description:
      'The monthly analysis cap is answered 429 with `Retry-After: 60`, as the rate limiter does: clients retry a month-long limit every minute',
    violates: '"402 | ... monthly analysis cap reached (predict)"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 402) return;
      answer.status = 429;
      answer.headers['retry-after'] = '60';
    },
  },
  {
    id: 'B-CAP-402-MESSAGE-FIELD',
    area: 'caps',
    description:
      "The 402 body names its text `message` (the billing service's error shape) instead of `detail`",
    violates:
      '"402 | ... `detail` is a human-readable explanation of the limit" / "Handled errors have body `{detail: string}`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (answer.status !== 402 || !isJson(answer)) return;
      const { detail, ...rest } = readJson<{ detail?: unknown }>(answer);
      writeJson(answer, { ...rest, message: detail });
    },
  },
  {
    id: 'B-CAP-ANALYSIS-FLAG-PROCESS-WIDE',
    area: 'caps',
    description:
      'The "analysis cap reached" flag is kept in one process-wide variable: once any organization hits its cap, every organization\'s predict answers 402',
    violates: '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    request(exchange, state) {
      const reached = state.memo.get('analysis-cap') as Answer | undefined;
      if (reached && match(exchange, 'POST', PREDICT) && bearer(exchange))
        return { ...reached, body: Buffer.from(reached.body) };
    },
    response(exchange, answer, state) {
      if (match(exchange, 'POST', PREDICT) && answer.status === 402)
        state.memo.set('analysis-cap', { ...answer, headers: { ...answer.headers } });
    },
  },
  {
    id: 'B-CAP-ABORTED-NOT-COUNTED',
    area: 'caps',
    description:
      "When the storage cap is reached, the cleanup job deletes the organization's aborted images to make room, and the upload goes through",
    violates:
      '"Failed or aborted images still count until deleted." / "uploaded chunks discarded; record stays and still counts against the storage cap"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const key = bearer(exchange) ?? '';
      const aborted = memoMap<string, string[]>(state, 'aborted-by-key');
      const abort = match(exchange, 'POST', ABORT);
      if (abort && answer.status === 200)
        return void aborted.set(key, [...(aborted.get(key) ?? []), abort[1]]);
      if (!takesSlot(exchange) || answer.status !== 402) return;
      const reclaimable = aborted.get(key) ?? [];
      if (!reclaimable.length) return;
      aborted.set(key, []);
      for (const imageId of reclaimable) await state.upstream('DELETE', `/api/v1/image/${imageId}`, { key });
      Object.assign(answer, await state.resend(exchange));
    },
  },
  {
    id: 'B-CAP-DELETE-SLOT-NOT-FREED',
    area: 'caps',
    description:
      "The organization's image counter is not decremented on delete: once at the cap, deleting images does not let the next upload in",
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!takesSlot(exchange)) return;
      const capped = memoMap<string, Answer>(state, 'capped').get(bearer(exchange) ?? '');
      const freed = memoMap<string, number>(state, 'freed').get(bearer(exchange) ?? '') ?? 0;
      if (capped && freed > 0) return { ...capped, body: Buffer.from(capped.body) };
    },
    response(exchange, answer, state) {
      const key = bearer(exchange) ?? '';
      if (takesSlot(exchange) && answer.status === 402)
        memoMap<string, Answer>(state, 'capped').set(key, { ...answer, headers: { ...answer.headers } });
      const freed = memoMap<string, number>(state, 'freed');
      if (
        match(exchange, 'DELETE', DELETE_IMAGE) &&
        answer.status === 200 &&
        memoMap(state, 'capped').has(key)
      )
        freed.set(key, (freed.get(key) ?? 0) + 1);
    },
  },
  {
    id: 'B-RATE-RETRY-AFTER-MS',
    area: 'caps',
    description: 'The 429 of the abuse limits gives `Retry-After` in milliseconds (1000 for one second)',
    violates: 'TooManyRequests (x-assumed): "Retry-After ... Seconds to wait before trying again."',
    statedIn: 'document',
    response(_exchange, answer) {
      const seconds = Number(answer.headers['retry-after']);
      if (answer.status === 429 && Number.isFinite(seconds))
        answer.headers['retry-after'] = String(seconds * 1000);
    },
  },
  {
    id: 'B-RATE-UPLOAD-429-NO-RETRY-AFTER',
    area: 'caps',
    description:
      'The open-uploads limit answers 429 on upload without `Retry-After` (only the per-second limiter sets it)',
    violates: 'TooManyRequests (x-assumed): "headers: Retry-After: required: true"',
    statedIn: 'document',
    response(exchange, answer) {
      if (takesSlot(exchange) && answer.status === 429) delete answer.headers['retry-after'];
    },
  },
];
