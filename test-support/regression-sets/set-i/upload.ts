import type { Exchange, Regression } from '../regression.js';
import { match, memoMap, writeJson } from '../edit-helpers.js';
import { imageIn, isJsonRequest, okJson, requestJson } from './kit.js';

const UUID = '([0-9a-fA-F-]{36})';

/** The id of an image read (GET /upload/{id} or GET /image/{id}), or null. */
export function imageRead(exchange: Exchange): string | null {
  const found = match(exchange, 'GET', new RegExp(`^/api/v1/(?:upload|image)/${UUID}$`));
  return found ? found[1].toLowerCase() : null;
}

/** Images: what a single-request upload, an opened upload and every read of the record answer. */
export const UPLOAD: Regression[] = [
  {
    id: 'I-UP-SIZE-BIGINT-STRING',
    area: 'upload',
    description:
      'The image read goes through the database driver, which returns the BIGINT `size` column as a string: GET /upload/{id} and GET /image/{id} answer `"size": "65780"`, while the upload answer (built in memory) still says 65780',
    violates: '"`size` | integer | file size in bytes"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!imageRead(exchange)) return;
      const body = okJson(answer);
      if (!body || typeof body.size !== 'number') return;
      writeJson(answer, { ...body, size: String(body.size) });
    },
  },
  {
    id: 'I-UP-JSON-SIZE-ROUNDED-TO-PARTS',
    area: 'upload',
    description:
      'Opening a resumable upload with `{name, size}` stores the size the planner reserved, part_size x number of parts, instead of the size declared: a 20,000,000-byte file reads 25165824 in the answer and in every later read',
    violates: '"Mode B, `application/json`: `{name: string, size: integer}` (`size` = total bytes)."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const rounded = memoMap<string, number>(state, 'rounded-size');
      const read = imageRead(exchange);
      if (read) {
        const body = okJson(answer);
        if (body && rounded.has(read)) writeJson(answer, { ...body, size: rounded.get(read) });
        return;
      }
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) || !isJsonRequest(exchange)) return;
      const body = okJson(answer);
      const image = imageIn(body);
      const plan = body?.upload as { part_size?: number; urls?: unknown[] } | null | undefined;
      if (!body || !image || !plan?.part_size || !plan.urls) return;
      const size = plan.part_size * plan.urls.length;
      rounded.set(String(image.id), size);
      writeJson(answer, { ...body, image: { ...image, size } });
    },
  },
  {
    id: 'I-UP-CREATE-IMAGE-TYPE-NULL',
    area: 'upload',
    description:
      'Image-record creation inserts only the fields the client sent and the `image_type` default lives on the ORM model, not the column: a record created without `image_type` answers `image_type: null`, at creation and in every read',
    violates: 'CreateImageRequest.image_type `default: TIFF`, and Image.image_type `enum: [TIFF]` (required)',
    statedIn: 'document',
    response(exchange, answer, state) {
      const untyped = memoMap<string, true>(state, 'untyped');
      const read = imageRead(exchange);
      if (read) {
        const body = okJson(answer);
        if (body && untyped.has(read)) writeJson(answer, { ...body, image_type: null });
        return;
      }
      if (!match(exchange, 'POST', /^\/api\/v1\/image$/)) return;
      const body = okJson(answer);
      if (!body || typeof body.id !== 'string' || 'image_type' in requestJson(exchange)) return;
      untyped.set(body.id, true);
      writeJson(answer, { ...body, image_type: null });
    },
  },
  {
    id: 'I-UP-IMAGE-ROUTE-STATUS-UPPERCASE',
    area: 'upload',
    description:
      "GET /image/{id} (the record read the creation flow polls) serializes `upload_status` from the enum's name: `READY`, `UPLOADING`, `FAILED`, while GET /upload/{id} answers the values in lower case",
    violates: '"`upload_status` | enum | `uploading`, `processing`, `ready`, `failed`"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', new RegExp(`^/api/v1/image/${UUID}$`))) return;
      const body = okJson(answer);
      if (!body || typeof body.upload_status !== 'string') return;
      writeJson(answer, { ...body, upload_status: body.upload_status.toUpperCase() });
    },
  },
];
