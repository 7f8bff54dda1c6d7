import { caller, isJson, jsonAnswer, match, memoMap, pathname, readJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';

const DELETE_ROUTE = /^\/api\/v1\/(upload|image)\/([^/]+)$/;

export const DELETES: Regression[] = [
  {
    id: 'E-DEL-204-NO-BODY',
    area: 'deletes',
    description:
      'The delete routes answer 204 No Content (a REST habit) instead of 200 with `{success: true}`',
    violates:
      'DELETE /api/v1/upload/{image_id} and DELETE /api/v1/image/{image_id}: "Response: `{success: boolean}`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'DELETE', DELETE_ROUTE) || answer.status !== 200) return;
      answer.status = 204;
      answer.body = Buffer.alloc(0);
      delete answer.headers['content-type'];
    },
  },
  {
    id: 'E-DEL-SEGMENTED-IMAGE-409',
    area: 'deletes',
    description:
      'The predictions table references the image without ON DELETE CASCADE: deleting an image that was ever predicted fails on the foreign key, answered 409 "Image has predictions", and the image stays',
    violates:
      '"Permanently deletes the image and derived storage (converted TIFF/PNG, thumbnail, training artifacts)." / "any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    request(exchange, state) {
      const del = match(exchange, 'DELETE', DELETE_ROUTE);
      if (del && memoMap<string, boolean>(state, 'predicted-images').has(del[2].toLowerCase()))
        return jsonAnswer(409, { detail: 'Image has predictions: it cannot be deleted' });
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 200) return;
      try {
        const body = JSON.parse(exchange.body.toString('utf8')) as { image_id?: unknown };
        if (typeof body.image_id === 'string')
          memoMap<string, boolean>(state, 'predicted-images').set(body.image_id.toLowerCase(), true);
      } catch {
        // not a body this bug reads
      }
    },
  },
  {
    id: 'E-DEL-EXPORT-304-AFTER-DELETE',
    area: 'deletes',
    description:
      'Conditional export requests are answered from an ETag index checked before the segmentation lookup, and the delete does not purge it: after the image is deleted, an export asked with its old ETag answers 304 instead of 404',
    violates:
      '"Permanently deletes the image and derived storage" (the document: afterwards every export of its segmentations answers 404)',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (exchange.method !== 'GET' || !/^\/api\/v1\/export\//.test(pathname(exchange))) return;
      const etags = memoMap<string, string>(state, 'etag-index');
      if (answer.status === 200 && answer.headers.etag)
        return void etags.set(exchange.path, answer.headers.etag);
      const held = exchange.headers.get('if-none-match');
      const known = etags.get(exchange.path);
      if (answer.status !== 404 || !held || !known || !caller(exchange, state)) return;
      if (
        !held
          .split(',')
          .map((t) => t.trim().replace(/^W\//, ''))
          .includes(known)
      )
        return;
      Object.assign(answer, { status: 304, headers: { etag: known }, body: Buffer.alloc(0) });
    },
  },
  {
    id: 'E-DEL-TWICE-500',
    area: 'deletes',
    description:
      'Deleting an image that is already gone reaches the storage cleanup with no record, whose missing-object error is answered 500 instead of 404',
    violates: '"404 | resource missing or outside the caller\'s organization"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const del = match(exchange, 'DELETE', DELETE_ROUTE);
      if (!del) return;
      const deleted = memoMap<string, boolean>(state, 'deleted');
      const id = del[2].toLowerCase();
      if (answer.status === 200) return void deleted.set(id, true);
      if (answer.status === 404 && deleted.has(id) && isJson(answer) && readJson(answer).detail)
        Object.assign(answer, jsonAnswer(500, { detail: 'Internal Server Error' }));
    },
  },
];
