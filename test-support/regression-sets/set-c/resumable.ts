import { isJson, jsonAnswer, match, memoMap, pathname, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { editImage, requestJson } from './tools.js';

/** The resumable flow: the plan, the part PUTs, complete and abort. */

const COMPLETE = /^\/api\/v1\/upload\/([^/]+)\/complete$/;
const ABORT = /^\/api\/v1\/upload\/([^/]+)\/abort$/;

type Parts = { parts?: Array<{ etag?: unknown; part_number?: unknown }> };

export const RESUMABLE: Regression[] = [
  {
    id: 'C-RES-COMPLETE-SAYS-UPLOADING',
    area: 'resumable',
    description:
      'Complete answers 202 with the status read before its own update: `{status: "uploading"}` instead of `processing`',
    violates: '"Response 202: `{status: "processing"}`. Conversion is asynchronous."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', COMPLETE) || answer.status !== 202 || !isJson(answer)) return;
      writeJson(answer, { ...readJson<Record<string, unknown>>(answer), status: 'uploading' });
    },
  },
  {
    id: 'C-RES-EMPTY-PARTS-REFUSED',
    area: 'resumable',
    description:
      'Complete with `{"parts": []}` is taken as an explicit subset of nothing and refused 422, instead of discovering the parts from storage as with no body',
    violates:
      '"With no body or empty `parts`, the service discovers the uploaded parts and ETags from storage."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', COMPLETE)) return;
      const body = requestJson<Parts>(exchange);
      if (!Array.isArray(body?.parts) || body.parts.length > 0) return;
      return jsonAnswer(422, {
        detail: 'parts: the list of parts to assemble is empty; send at least one part',
      });
    },
  },
  {
    id: 'C-RES-CREATE-PLAN-ONE-PART',
    area: 'resumable',
    description:
      "Image-record creation builds the plan before the record's size is set: whatever `size`, the plan has a single part URL, so a file larger than one part has nowhere to go",
    violates:
      '"`resumable` (boolean; when true the response also carries `upload` with presigned part URLs sized for `size`)"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (exchange.method !== 'POST' || pathname(exchange) !== '/api/v1/image' || answer.status !== 200)
        return;
      const body = readJson<{ upload?: { urls: unknown[] } | null }>(answer);
      if (!body.upload || body.upload.urls.length < 2) return;
      body.upload.urls = body.upload.urls.slice(0, 1);
      writeJson(answer, body);
    },
  },
  {
    id: 'C-RES-QUOTED-ETAG-REFUSED',
    area: 'resumable',
    description:
      'Complete compares the listed ETags with the stored ones character for character: an ETag sent with the quotes the part PUT answered is refused 422 as a wrong ETag',
    violates:
      'completeUpload: "Each part listed must be a part of the plan that was PUT, with the ETag its PUT answered (quotes optional)"',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'POST', COMPLETE)) return;
      if (!Array.isArray(requestJson<Parts>(exchange)?.parts)) return;
      const quoted = requestJson<Parts>(exchange)?.parts?.find(
        (part) => typeof part.etag === 'string' && part.etag.startsWith('"'),
      );
      if (!quoted) return;
      return jsonAnswer(422, {
        detail: `Part ${String(quoted.part_number)}: ETag ${String(quoted.etag)} does not match the uploaded part`,
      });
    },
  },
  {
    id: 'C-RES-ABORT-ANY-STATE',
    area: 'resumable',
    description:
      'Abort lost its state check: an image that is ready, processing or already failed is "aborted" (200) and marked `failed`, a ready image included',
    violates:
      'abortUpload 422 ("A complete or abort on an image that is not in `uploading`: 422", ValidationErrorArrayOrState); the interface\'s abort transition starts from `uploading` only',
    statedIn: 'document',
    request(exchange, state) {
      // The image is failed from then on: predict refuses it as it refuses any image not ready.
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      const imageId = String(requestJson<{ image_id?: string }>(exchange)?.image_id).toLowerCase();
      if (!memoMap<string, true>(state, 'aborted-any-state').has(imageId)) return;
      return jsonAnswer(422, {
        detail: `Image ${imageId} is not ready (upload_status is 'failed'); poll GET /api/v1/upload/{image_id} until it is ready.`,
      });
    },
    response(exchange, answer, state) {
      const aborted = memoMap<string, true>(state, 'aborted-any-state');
      const found = match(exchange, 'POST', ABORT);
      if (found) {
        if (answer.status !== 422 || !isJson(answer) || typeof readJson(answer).detail !== 'string') return;
        aborted.set(found[1].toLowerCase(), true);
        writeJson(answer, { status: 'aborted' });
        answer.status = 200;
        return;
      }
      editImage(exchange, answer, (image) => {
        if (exchange.method !== 'GET' || !aborted.has(String(image.id))) return;
        image.upload_status = 'failed';
        image.upload_error = 'Upload aborted by the client';
      });
    },
  },
];
