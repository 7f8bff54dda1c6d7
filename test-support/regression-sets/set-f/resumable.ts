import { isJson, jsonAnswer, match, memoMap, pathname, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Regression } from '../regression.js';
import { COMPLETE, CREATE_IMAGE, UPLOAD, requestJson } from './shared.js';

const PART = /^\/storage\/uploads\/([^/]+)\/parts\/(\d+)$/;
const GET_IMAGE = /^\/api\/v1\/image\/([^/]+)$/;

interface Part {
  part_number?: unknown;
  etag?: unknown;
}

/** The plan of an answer that opened a resumable upload (POST /upload JSON, POST /image). */
function planOf(body: Record<string, unknown>): { urls: Array<{ url: string }> } | undefined {
  const plan = body.upload as { urls?: Array<{ url: string }> } | null | undefined;
  return plan?.urls ? (plan as { urls: Array<{ url: string }> }) : undefined;
}

function xmlAnswer(status: number, code: string, message: string): Answer {
  return {
    status,
    headers: { 'content-type': 'application/xml' },
    body: Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
    ),
  };
}

/** The resumable flow: the plan, the part PUTs, complete, and the polling read. */
export const RESUMABLE_REGRESSIONS: Regression[] = [
  {
    id: 'F-RES-PARTS-ORDER-REFUSED',
    area: 'resumable',
    description:
      "Complete hands the client's `parts` list to the object store as it is, and S3 wants it ascending: a list not in part-number order is refused 422 InvalidPartOrder",
    violates:
      'completeUpload: "A `parts` list is assembled in part-number order, whatever order it lists the parts in."',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'POST', COMPLETE)) return;
      const parts = requestJson<{ parts?: Part[] }>(exchange)?.parts;
      if (!Array.isArray(parts)) return;
      const numbers = parts.map((part) => Number(part?.part_number));
      if (numbers.every((n, i) => i === 0 || n >= numbers[i - 1])) return;
      return jsonAnswer(422, {
        detail:
          'InvalidPartOrder: the list of parts was not in ascending order; parts must be listed by part number.',
      });
    },
  },
  {
    id: 'F-RES-DUPLICATE-PART-ACCEPTED',
    area: 'resumable',
    description:
      'Complete collects the listed parts into a map by part number: a part listed twice is silently merged (the last ETag wins) and the upload is assembled instead of refused',
    violates: 'completeUpload: "a part listed twice is refused" (422 with a string detail)',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'POST', COMPLETE)) return;
      const body = requestJson<{ parts?: Part[] }>(exchange);
      if (!Array.isArray(body?.parts)) return;
      const byNumber = new Map(body.parts.map((part) => [String(part?.part_number), part]));
      if (byNumber.size === body.parts.length) return;
      exchange.body = Buffer.from(JSON.stringify({ ...body, parts: [...byNumber.values()] }));
    },
  },
  {
    id: 'F-RES-PART-RETRY-409',
    area: 'resumable',
    description:
      'The part endpoint records each part number once and refuses a second PUT of it 409 PartAlreadyUploaded: a client that retries a part after a lost answer can never finish',
    violates:
      '"Single-request upload is suited up to a few hundred MB; larger or unreliable transfers use the resumable flow." / "PUT each chunk to its presigned `url`"',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'PUT', PART);
      if (!found || !memoMap<string, boolean>(state, 'parts').has(pathname(exchange))) return;
      return xmlAnswer(409, 'PartAlreadyUploaded', `Part ${found[2]} of this upload was already uploaded.`);
    },
    response(exchange, answer, state) {
      if (match(exchange, 'PUT', PART) && answer.status === 200)
        memoMap<string, boolean>(state, 'parts').set(pathname(exchange), true);
    },
  },
  {
    id: 'F-RES-URLS-INTERNAL-HOST',
    area: 'resumable',
    description:
      "The part URLs are presigned with the object store's internal endpoint (`http://object-store.internal:9000`) instead of its public one: no client outside the cluster can PUT a part",
    violates:
      '"`{storage_url}` stands for the presigned object-storage addresses returned by the service." / "PUT each chunk to its presigned `url`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', UPLOAD) && !match(exchange, 'POST', CREATE_IMAGE)) return;
      if (answer.status !== 200 || !isJson(answer)) return;
      const body = readJson(answer);
      const plan = planOf(body);
      if (!plan) return;
      for (const part of plan.urls)
        part.url = part.url.replace(state.self, 'http://object-store.internal:9000');
      writeJson(answer, body);
    },
  },
  {
    id: 'F-RES-COMPLETE-EMPTY-JSON-422',
    area: 'resumable',
    description:
      'Complete parses its body as JSON whenever Content-Type says JSON: a complete with `Content-Type: application/json` and no body (what many clients send) is refused 422 "JSON decode error"',
    violates:
      '"Body optional: `{parts: [...]}`. With no body or empty `parts`, the service discovers the uploaded parts and ETags from storage."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', COMPLETE) || exchange.body.toString('utf8').trim().length) return;
      if (!/json/i.test(exchange.headers.get('content-type') ?? '')) return;
      return jsonAnswer(422, {
        detail: [
          {
            loc: ['body', 0],
            msg: 'JSON decode error',
            type: 'json_invalid',
            input: {},
            ctx: { error: 'Expecting value' },
          },
        ],
      });
    },
  },
  {
    id: 'F-RES-IMAGE-READ-UPLOADING-404',
    area: 'resumable',
    description:
      'GET /image/{id} joins the stored file row, which exists only once conversion finished: an image still `uploading` or `processing` answers 404 on the polling read of the record flow',
    violates: '"`GET /api/v1/image/{image_id}` is named as the polling read for this flow"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', GET_IMAGE) || answer.status !== 200 || !isJson(answer)) return;
      const status = readJson<{ upload_status?: string }>(answer).upload_status;
      if (status === 'uploading' || status === 'processing')
        Object.assign(answer, jsonAnswer(404, { detail: 'Image not found' }));
    },
  },
];
