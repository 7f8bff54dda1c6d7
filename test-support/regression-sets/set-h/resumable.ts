import type { Answer, Exchange, Regression } from '../regression.js';
import { caller, isJson, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import { editImage, idOn, requestJson } from './kit.js';

interface Plan {
  part_size: number;
  upload_id: string;
  urls: Array<{ part_number: number; url: string }>;
}

/** The plan an answer opening a resumable upload carries, with the body it sits in. */
function openedPlan(
  exchange: Exchange,
  answer: Answer,
): { body: Record<string, unknown>; plan: Plan } | null {
  if (answer.status !== 200 || !isJson(answer)) return null;
  if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) && !match(exchange, 'POST', /^\/api\/v1\/image$/))
    return null;
  const body = readJson<Record<string, unknown>>(answer);
  const plan = body.upload as Plan | null | undefined;
  return plan && Array.isArray(plan.urls) ? { body, plan } : null;
}

export const RESUMABLE: Regression[] = [
  {
    id: 'H-RES-PLAN-REUSED-BY-NAME-SIZE',
    area: 'resumable',
    description:
      'A "resume" shortcut looks for an upload of the organization still in progress with the same name and size and hands its plan out again: a second file opened with the same name and size (the same plate re-imaged) gets the first upload\'s upload_id and part URLs, its parts land in the first upload, and its own complete finds nothing to assemble',
    violates:
      '"Mode B ... Response: Upload response with `upload` = plan" then "PUT each chunk to its presigned `url` in part order; call complete; poll status" (the plan is the opened upload\'s own)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const opened = openedPlan(exchange, answer);
      const org = caller(exchange, state);
      if (!opened || !org) return;
      const request = requestJson(exchange);
      const key = `${org.id}|${String(request.name)}|${String(request.size)}`;
      const earlier = memoMap<string, { imageId: string; plan: Plan }>(state, 'open-uploads');
      const first = earlier.get(key);
      if (first) {
        const read = await state.upstream('GET', `/api/v1/upload/${first.imageId}`, { key: org.key });
        if (read.status === 200 && readJson(read).upload_status === 'uploading') {
          opened.body.upload = first.plan;
          writeJson(answer, opened.body);
          return;
        }
      }
      const image = (opened.body.image ?? opened.body) as { id: string };
      earlier.set(key, { imageId: image.id, plan: opened.plan });
    },
  },
  {
    id: 'H-RES-CONVERSION-FAILURE-READY',
    area: 'resumable',
    description:
      'The asynchronous converter of a completed upload catches its own exception and still sets `ready`: a resumable upload whose bytes are not a readable TIFF reads `ready` (no shape, no `upload_error`) instead of `failed` with its reason',
    violates: '"`processing` | conversion fails | | `failed` | reason in `upload_error`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const completed = memoMap<string, true>(state, 'completed');
      const id = idOn(exchange, 'POST', /^\/api\/v1\/upload\/([^/]+)\/complete$/);
      if (id && answer.status === 202) completed.set(id, true);
      editImage(exchange, answer, (image) => {
        if (image.upload_status !== 'failed' || !completed.has(String(image.id).toLowerCase())) return;
        image.upload_status = 'ready';
        delete image.upload_error;
      });
    },
  },
  {
    id: 'H-RES-PLAN-SHORT-ONE-BYTE-OVER',
    area: 'resumable',
    description:
      "The part count is computed from the last byte's offset, ceil((size - 1) / part_size), instead of ceil(size / part_size): a file one byte longer than a whole number of parts (8 MiB + 1, 16 MiB + 1 bytes) gets no URL for its last byte, and a 1-byte file a plan with no URL",
    violates:
      '"`urls` | array | items `{part_number: integer, url: string}`; PUT each chunk to its `url`, in part order" (a URL for every chunk of `size`)',
    statedIn: 'interface',
    response(exchange, answer) {
      const opened = openedPlan(exchange, answer);
      const size = Number(requestJson(exchange).size);
      if (!opened || !Number.isInteger(size) || size < 1) return;
      const count = Math.ceil((size - 1) / opened.plan.part_size);
      if (count >= opened.plan.urls.length) return;
      opened.plan.urls = opened.plan.urls.slice(0, count);
      writeJson(answer, opened.body);
    },
  },
];
