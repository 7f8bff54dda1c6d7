import {
  bearer,
  isJson,
  jsonAnswer,
  match,
  memoMap,
  pathname,
  readJson,
  writeJson,
} from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';
import { editImages, IMAGE_READ, UUID } from './state.js';

interface Plan {
  part_size: number;
  upload_id: string;
  urls: Array<{ part_number: number; url: string }>;
}

/** The plan an answer carries (POST /upload JSON mode, POST /image with resumable), and its image. */
function planOf(
  exchange: Exchange,
  answer: Answer,
): { body: Record<string, unknown>; plan: Plan; imageId: string } | undefined {
  if (answer.status !== 200 || !isJson(answer)) return undefined;
  if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) && !match(exchange, 'POST', /^\/api\/v1\/image$/))
    return undefined;
  const body = readJson<Record<string, unknown>>(answer);
  const plan = body.upload as Plan | null | undefined;
  if (!plan || !Array.isArray(plan.urls)) return undefined;
  const imageId = String((body.image as { id?: string } | undefined)?.id ?? body.id);
  return { body, plan, imageId };
}

export const RESUMABLE: Regression[] = [
  {
    id: 'G-RES-PART-SIZE-DECIMAL-MB',
    area: 'resumable',
    description:
      'The plan\'s `part_size` is written from the config\'s "8MB" parsed as decimal megabytes (8000000) while the URLs are counted in MiB chunks: a client that cuts its file by `part_size` has more chunks than URLs (16500000 bytes: 3 chunks, 2 URLs) and the assembled file is short',
    violates: '"`part_size` | integer | bytes per chunk" and "PUT each chunk to its `url`, in part order"',
    statedIn: 'interface',
    response(exchange, answer) {
      const found = planOf(exchange, answer);
      if (!found || found.plan.part_size !== 8 * 1024 * 1024) return;
      found.plan.part_size = 8_000_000;
      writeJson(answer, found.body);
    },
  },
  {
    id: 'G-RES-FIRST-POLL-UPLOADING',
    area: 'resumable',
    description:
      'Complete answers 202 before its status update is committed: the first poll after it still reads the image `uploading` (no shape), as if complete had not been called',
    violates:
      '"`uploading` | `POST /upload/{image_id}/complete` | parts assembled | `processing` | async conversion starts; returns 202"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const completed = memoMap<string, boolean>(state, 'g-res-completed');
      const done = match(exchange, 'POST', new RegExp(`^/api/v1/upload/${UUID}/complete$`));
      if (done && answer.status === 202) {
        completed.set(done[1].toLowerCase(), true);
        return;
      }
      const read = exchange.method === 'GET' ? pathname(exchange).match(IMAGE_READ) : null;
      if (!read || !completed.get(read[1].toLowerCase())) return;
      completed.delete(read[1].toLowerCase());
      editImages(answer, (image) => {
        if (image.upload_status !== 'processing' && image.upload_status !== 'ready') return;
        image.upload_status = 'uploading';
        image.shape = null;
        image.processed_at = null;
      });
    },
  },
  {
    id: 'G-RES-LAST-PART-MIN-SIZE',
    area: 'resumable',
    description:
      "Complete applies the object store's minimum part size to every part, the last included: an upload of more than one part whose size is not a multiple of `part_size` (almost every real file) is refused 422 EntityTooSmall",
    violates:
      '"Then: PUT each chunk to its presigned `url` in part order; call complete; poll status." (a file whose last chunk is short is a normal upload)',
    statedIn: 'interface',
    async request(exchange, state) {
      const done = match(exchange, 'POST', new RegExp(`^/api/v1/upload/${UUID}/complete$`));
      if (!done) return;
      const image = await state.upstream('GET', `/api/v1/upload/${done[1]}`, { key: bearer(exchange) });
      if (image.status !== 200) return;
      const { size, upload_status } = readJson<{ size: number; upload_status: string }>(image);
      const partSize = 8 * 1024 * 1024;
      if (upload_status !== 'uploading' || size <= partSize || size % partSize === 0) return;
      const last = Math.ceil(size / partSize);
      return jsonAnswer(422, {
        detail: `EntityTooSmall: part ${last} is ${size % partSize} bytes, smaller than the minimum allowed part size of ${partSize} bytes`,
      });
    },
  },
  {
    id: 'G-RES-PART-URLS-EXPIRE-SECONDS',
    area: 'resumable',
    description:
      'The part URLs\' lifetime (configured 3600 s) is divided by 1000 as if it were milliseconds: every part URL expires 3.6 s after the plan is issued, and a PUT after that is refused 403 "Request has expired"',
    violates:
      '"larger or unreliable transfers use the resumable flow" and "PUT each chunk to its presigned `url` in part order" (the plan must outlive the transfer it is for)',
    statedIn: 'interface',
    request(exchange, state) {
      const issued = memoMap<string, number>(state, 'g-res-issued');
      const put =
        exchange.method === 'PUT'
          ? pathname(exchange).match(/^\/storage\/uploads\/([^/]+)\/parts\/\d+$/)
          : null;
      if (!put) return;
      const at = issued.get(put[1]);
      if (at === undefined || Date.now() - at <= 3600) return;
      return {
        status: 403,
        headers: { 'content-type': 'application/xml' },
        body: Buffer.from(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
        ),
      };
    },
    response(exchange, answer, state) {
      const found = planOf(exchange, answer);
      if (found) memoMap<string, number>(state, 'g-res-issued').set(found.plan.upload_id, Date.now());
    },
  },
  {
    id: 'G-RES-ABORT-SAYS-FAILED',
    area: 'resumable',
    description:
      'Abort answers the image\'s new `upload_status` (`{status: "failed"}`) instead of the outcome of the call, "aborted": a client that checks the answer takes its abort for a failure and retries it',
    violates:
      'openapi.yaml POST /upload/{image_id}/abort: 200 `{status: "aborted"}` (x-assumed: the mock answers "aborted")',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'POST', new RegExp(`^/api/v1/upload/${UUID}/abort$`)) || answer.status !== 200)
        return;
      if (isJson(answer) && readJson<{ status?: string }>(answer).status === 'aborted')
        writeJson(answer, { status: 'failed' });
    },
  },
];
