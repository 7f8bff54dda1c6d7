import { isJson, isUuid, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { editImages, isMultipart } from './image-edits.js';

/** Uploading an image in one request or opening a resumable upload with JSON, and reading it back. */
export const UPLOAD_REGRESSIONS: Regression[] = [
  {
    id: 'A-UP-SINGLE-NOT-READY',
    area: 'upload',
    description:
      'A single-request upload answers the record as it was before conversion (processing, no shape, no processed_at); a later read says ready',
    violates: 'Mode A: "Response: Upload response with `upload` null and `image.upload_status` = `ready`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!isMultipart(exchange)) return;
      editImages(exchange, answer, (image) => {
        if (image.upload_status !== 'ready') return;
        Object.assign(image, { upload_status: 'processing', shape: null, processed_at: null });
      });
    },
  },
  {
    id: 'A-UP-SIZE-ENVELOPE',
    area: 'upload',
    description:
      'A single-request upload records the size of the whole multipart body (boundaries and part headers included), not of the file, in every read',
    violates: 'Image `size`: "file size in bytes"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const sizes = memoMap<string, number>(state, 'envelope sizes');
      editImages(exchange, answer, (image) => {
        if (isMultipart(exchange) && exchange.method === 'POST')
          sizes.set(String(image.id), exchange.body.length);
        const envelope = sizes.get(String(image.id));
        if (envelope !== undefined) image.size = envelope;
      });
    },
  },
  {
    id: 'A-UP-SHAPE-WIDTH-FIRST',
    area: 'upload',
    description:
      "The converted image's `shape` is written width first, [width, height] (PIL's order) instead of [height, width]",
    violates:
      'Image.shape (x-assumed): "`[height, width]`, with a leading page count ... and a trailing channel count"',
    statedIn: 'document',
    response(exchange, answer) {
      editImages(exchange, answer, (image) => {
        const shape = image.shape as number[] | null | undefined;
        if (Array.isArray(shape) && shape.length === 2) image.shape = [shape[1], shape[0]];
      });
    },
  },
  {
    id: 'A-UP-FAILED-SUCCESS-TRUE',
    area: 'upload',
    description: 'A single-request upload whose conversion failed still answers `success: true`',
    violates:
      'UploadResponse.success: "False when the file was stored but could not be converted (`image.upload_status` is `failed`)."',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) || answer.status !== 200 || !isJson(answer)) return;
      const body = readJson<{ success: boolean; image: { upload_status: string } }>(answer);
      if (body.image?.upload_status !== 'failed') return;
      body.success = true;
      writeJson(answer, body);
    },
  },
  {
    id: 'A-UP-FAILED-NO-REASON',
    area: 'upload',
    description:
      "A failed image carries no `upload_error`: the conversion's exception is logged but not saved",
    violates: 'Image `upload_error`: "reason, present when `upload_status` is `failed`"',
    statedIn: 'interface',
    response(exchange, answer) {
      editImages(exchange, answer, (image) => {
        if (image.upload_status === 'failed') delete image.upload_error;
      });
    },
  },
  {
    id: 'A-UP-JSON-SIZE-ZERO',
    area: 'upload',
    description:
      'A resumable upload opened with JSON records `size` 0 until the parts are assembled (filled only at complete)',
    violates:
      'Mode B: "`{name: string, size: integer}` (`size` = total bytes)"; Image `size`: "file size in bytes"',
    statedIn: 'interface',
    response(exchange, answer) {
      editImages(exchange, answer, (image) => {
        if (image.upload_status === 'uploading') image.size = 0;
      });
    },
  },
  {
    id: 'A-UP-NON-UUID-404',
    area: 'upload',
    description:
      'A non-UUID image id in the path reaches the lookup and answers 404 "Image not found" instead of 422',
    violates: 'Errors: "422 | a path or body id is not a valid UUID (rejected before reaching storage)"',
    statedIn: 'interface',
    response(exchange, answer) {
      const found = match(
        exchange,
        exchange.method,
        /^\/api\/v1\/(upload|image)\/([^/]+)(\/(complete|abort))?$/,
      );
      if (!found || answer.status !== 422 || isUuid(decodeURIComponent(found[2]))) return;
      answer.status = 404;
      writeJson(answer, { detail: 'Image not found' });
    },
  },
];
