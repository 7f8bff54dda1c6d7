import { randomUUID } from 'node:crypto';
import type { Regression } from '../regression.js';
import { bearer, isJson, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';

const DELETE = /^\/api\/v1\/(?:upload|image)\/([^/]+)$/;

/** Images this proxy saw deleted with a 200, by lower-case id. */
function noteDeleted(
  exchange: Parameters<NonNullable<Regression['request']>>[0],
  status: number,
  memo: Map<string, true>,
) {
  const found = match(exchange, 'DELETE', DELETE);
  if (found && status === 200) memo.set(found[1].toLowerCase(), true);
}

export const DELETES: Regression[] = [
  {
    id: 'D-DEL-READ-410',
    area: 'deletes',
    description:
      'Images are soft-deleted and the read answers a deleted one 410 Gone "Image was deleted" instead of 404',
    violates: '"404 | resource missing or outside the caller\'s organization" (a deleted image is removed)',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'GET', DELETE);
      if (found && memoMap<string, true>(state, 'deleted').has(found[1].toLowerCase()))
        return jsonAnswer(410, { detail: 'Image was deleted' });
    },
    response(exchange, answer, state) {
      noteDeleted(exchange, answer.status, memoMap(state, 'deleted'));
    },
  },
  {
    id: 'D-DEL-STILL-PREDICTABLE',
    area: 'deletes',
    description:
      'Predict finds images without the soft-delete filter: a deleted image is accepted (`submitted`) and the run then FAILS, instead of a 404',
    violates:
      'State table: "any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed" / predict "404 (image ... missing)"',
    statedIn: 'interface',
    request(exchange, state) {
      const runs = memoMap<string, Record<string, unknown>>(state, 'deleted-runs');
      const read = match(exchange, 'GET', /^\/api\/v1\/predict\/([^/]+)$/);
      if (read && runs.has(read[1])) return jsonAnswer(200, runs.get(read[1]));
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      let body: { image_id?: unknown; model_id?: unknown };
      try {
        body = JSON.parse(exchange.body.toString('utf8')) as typeof body;
      } catch {
        return;
      }
      if (typeof body.image_id !== 'string') return;
      if (!memoMap<string, true>(state, 'deleted').has(body.image_id.toLowerCase())) return;
      const predictionId = randomUUID();
      runs.set(predictionId, {
        prediction_id: predictionId,
        image_id: body.image_id,
        model_id: body.model_id,
        created_at: new Date().toISOString(),
        status: 'FAILED',
        error: 'Image file not found in storage',
      });
      return jsonAnswer(200, {
        prediction_id: predictionId,
        status: 'submitted',
        reason: 'Queued for segmentation.',
      });
    },
    response(exchange, answer, state) {
      noteDeleted(exchange, answer.status, memoMap(state, 'deleted'));
    },
  },
  {
    id: 'D-DEL-REVOKES-ALL-ORG-SHARES',
    area: 'deletes',
    description:
      "The delete's share cleanup filters on the organization instead of the image's segmentations: deleting one image revokes every live share of the organization",
    violates:
      '**DELETE `/api/v1/image/{image_id}`** "Permanently deletes the image and derived storage" (only that image\'s)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const shares = memoMap<string, string>(state, 'share-key');
      if (
        exchange.method === 'POST' &&
        /^\/api\/v1\/shares$/.test(new URL(exchange.path, 'http://p').pathname)
      ) {
        if (answer.status === 200 && isJson(answer)) {
          const id = readJson<{ id?: string }>(answer).id;
          const key = bearer(exchange);
          if (id && key) shares.set(id, key);
        }
        return;
      }
      if (!match(exchange, 'DELETE', DELETE) || answer.status !== 200) return;
      const key = bearer(exchange);
      for (const [id, owner] of shares)
        if (owner === key) await state.upstream('DELETE', `/api/v1/shares/${id}`, { key });
    },
  },
  {
    id: 'D-DEL-IMAGE-NON-UUID-500',
    area: 'deletes',
    description:
      'DELETE /image/{id} lost its path validator (only /upload/{id} kept it): a non-UUID id reaches the database, whose cast error is a 500',
    violates: '"422 | a path or body id is not a valid UUID (rejected before reaching storage)"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (match(exchange, 'DELETE', /^\/api\/v1\/image\/([^/]+)$/) && answer.status === 422) {
        answer.status = 500;
        writeJson(answer, { detail: 'Internal Server Error' });
      }
    },
  },
  {
    id: 'D-DEL-UPLOAD-ROUTE-REFUSES-READY',
    area: 'deletes',
    description:
      'DELETE /upload/{id} was written as "cancel the upload": an image that is already ready (or failed) is refused 422 "No upload in progress" and stays',
    violates:
      'State table: "any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    async request(exchange, state) {
      const found = match(exchange, 'DELETE', /^\/api\/v1\/upload\/([^/]+)$/);
      if (!found) return;
      const read = await state.upstream('GET', `/api/v1/upload/${found[1]}`, { key: bearer(exchange) });
      if (read.status !== 200 || !isJson(read)) return;
      const status = readJson<{ upload_status?: string }>(read).upload_status;
      if (status === 'ready' || status === 'failed')
        return jsonAnswer(422, {
          detail: `No upload in progress for image ${found[1]} (upload_status is '${status}')`,
        });
    },
  },
];
