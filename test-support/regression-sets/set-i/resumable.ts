import type { Regression } from '../regression.js';
import { isUuid, jsonAnswer, match, memoMap, writeJson } from '../edit-helpers.js';
import { imageIn, okJson, requestJson } from './kit.js';

const UUID = '([0-9a-fA-F-]{36})';

/** The resumable flow: open, PUT parts, complete, abort, poll. */
export const RESUMABLE: Regression[] = [
  {
    id: 'I-RES-ABORT-NOT-UPLOADING-404',
    area: 'resumable',
    description:
      'Abort looks the image up `WHERE upload_status = \'uploading\'`: aborting an image that exists but is ready, processing or already failed answers 404 "Upload not found" instead of refusing the state (422)',
    violates: '"404 | resource missing or outside the caller\'s organization"',
    statedIn: 'interface',
    response(exchange, answer) {
      const found = match(exchange, 'POST', new RegExp(`^/api/v1/upload/${UUID}/abort$`));
      if (!found || !isUuid(found[1]) || answer.status !== 422) return;
      answer.status = 404;
      writeJson(answer, { detail: 'Upload not found' });
    },
  },
  {
    id: 'I-RES-SHAPE-ZEROS-WHILE-PENDING',
    area: 'resumable',
    description:
      "The image row's `shape` column defaults to `{0,0}` (NOT NULL, for the dashboard's grid): an image still uploading or processing answers `shape: [0, 0]` instead of null until it is converted",
    violates: 'Image.shape `type: [array, null]`, `items: minimum: 1`, "Filled once the image is converted"',
    statedIn: 'document',
    response(_exchange, answer) {
      const body = okJson(answer);
      const image = imageIn(body);
      if (!body || !image || image.shape != null) return;
      if (image.upload_status !== 'uploading' && image.upload_status !== 'processing') return;
      image.shape = [0, 0];
      writeJson(answer, body);
    },
  },
  {
    id: 'I-RES-EXPLICIT-PARTS-SHIFTED',
    area: 'resumable',
    description:
      'Complete turns each listed `part_number` into an array index with `+ 1` where `- 1` was meant: an explicit `parts` list names the wrong parts, the last one past the plan ("Part 2 was not uploaded", 422), and a single-part upload can never be completed with its list',
    violates:
      '"Body optional: `{parts: [{etag: string, part_number: integer}]}`. [...] Send `parts` only to assemble an explicit subset."',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'POST', new RegExp(`^/api/v1/upload/${UUID}/complete$`));
      if (!found) return;
      const body = requestJson(exchange);
      const parts = body.parts as Array<{ part_number?: unknown }> | undefined;
      if (!Array.isArray(parts) || parts.length === 0) return;
      const count = memoMap<string, number>(state, 'part-count').get(found[1].toLowerCase());
      const shifted = parts.map((p) => ({ ...p, part_number: Number(p.part_number) + 1 }));
      const past = shifted.find((p) => count !== undefined && p.part_number > count);
      if (past) return jsonAnswer(422, { detail: `Part ${past.part_number} was not uploaded` });
      exchange.body = Buffer.from(JSON.stringify({ ...body, parts: shifted }));
    },
    response(exchange, answer, state) {
      if (exchange.method !== 'POST' || !/^\/api\/v1\/(?:upload|image)$/.test(exchange.path.split('?')[0]))
        return;
      const body = okJson(answer);
      const image = imageIn(body);
      const plan = body?.upload as { urls?: unknown[] } | null | undefined;
      if (image && plan?.urls)
        memoMap<string, number>(state, 'part-count').set(String(image.id), plan.urls.length);
    },
  },
  {
    id: 'I-RES-CREATE-RESUMABLE-FALSE-PLAN',
    area: 'resumable',
    description:
      'Image-record creation tests `resumable is not None` instead of its value: a client that sends `resumable: false` (a generated client sends every default) gets a presigned plan and an open multipart upload it never asked for',
    violates:
      '"`resumable` (boolean; when true the response also carries `upload` with presigned part URLs sized for `size`)"',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', /^\/api\/v1\/image$/)) return;
      const body = requestJson(exchange);
      if (body.resumable !== false) return;
      exchange.body = Buffer.from(JSON.stringify({ ...body, resumable: true }));
    },
  },
];
