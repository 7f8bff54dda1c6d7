import type { Regression } from '../regression.js';
import { bearer, copyAnswer, jsonAnswer, match, memoMap, writeJson } from '../edit-helpers.js';
import type { Answer } from '../regression.js';
import { imageIn, okJson, orgOf, orgOfKey } from './kit.js';

const UUID = '([0-9a-fA-F-]{36})';

/** Deleting images: what is removed with them and what each route answers afterwards. */
export const DELETES: Regression[] = [
  {
    id: 'I-DEL-EXPORTS-410',
    area: 'deletes',
    description:
      'Segmentations are soft-deleted with their image and the export routes tell a deleted one from an unknown one: after the image is deleted, its exports answer 410 Gone "Segmentation was deleted" instead of 404',
    violates: '"404 | resource missing or outside the caller\'s organization"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const seen = memoMap<string, string>(state, 'segmentations-seen');
      const org = orgOf(exchange, state)?.id;
      if (!org) return;
      const read = match(exchange, 'GET', new RegExp(`^/api/v1/predict/${UUID}$`));
      if (read) {
        const segmentation = okJson(answer)?.segmentation_id;
        if (typeof segmentation === 'string') seen.set(segmentation, org);
        return;
      }
      const asked = match(exchange, 'GET', new RegExp(`^/api/v1/export/${UUID}/[^/]+$`));
      if (!asked) return;
      const segmentation = asked[1].toLowerCase();
      if (answer.status === 200) seen.set(segmentation, org);
      else if (answer.status === 404 && seen.get(segmentation) === org) {
        answer.status = 410;
        writeJson(answer, { detail: 'Segmentation was deleted' });
      }
    },
  },
  {
    id: 'I-DEL-IMAGE-ROUTE-UPLOAD-READ-SURVIVES',
    area: 'deletes',
    description:
      'DELETE /image/{id} removes the row of the images table, but GET /upload/{id} reads the uploads table, which only DELETE /upload/{id} cleans: an image deleted through /image still answers 200 with its record on GET /upload/{id}',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    async request(exchange, state) {
      const ghosts = memoMap<string, Answer>(state, 'upload-rows');
      const removed = match(exchange, 'DELETE', new RegExp(`^/api/v1/image/${UUID}$`));
      if (removed) {
        const id = removed[1].toLowerCase();
        const row = await state.upstream('GET', `/api/v1/upload/${id}`, { key: bearer(exchange) });
        if (row.status === 200) ghosts.set(id, copyAnswer(row));
        return;
      }
      const read = match(exchange, 'GET', new RegExp(`^/api/v1/upload/${UUID}$`));
      const ghost = read && ghosts.get(read[1].toLowerCase());
      if (ghost && orgOf(exchange, state)) {
        const seen = await state.resend(exchange);
        return seen.status === 404 ? copyAnswer(ghost) : seen;
      }
      const cleaned = match(exchange, 'DELETE', new RegExp(`^/api/v1/upload/${UUID}$`));
      if (cleaned && ghosts.delete(cleaned[1].toLowerCase())) {
        const seen = await state.resend(exchange);
        return seen.status === 404 ? jsonAnswer(200, { success: true }) : seen;
      }
    },
    response(exchange, answer, state) {
      const removed = match(exchange, 'DELETE', new RegExp(`^/api/v1/image/${UUID}$`));
      if (removed && answer.status !== 200)
        memoMap<string, Answer>(state, 'upload-rows').delete(removed[1].toLowerCase());
    },
  },
  {
    id: 'I-DEL-SECOND-KEY-404',
    area: 'deletes',
    description:
      'The delete filters `WHERE id = :id AND created_by_key = :key` (a guard meant for shared lab accounts): another key of the same organization is answered 404 "Image not found" and the image stays, still taking its slot',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'DELETE', new RegExp(`^/api/v1/(?:upload|image)/${UUID}$`));
      if (!found) return;
      const creator = memoMap<string, string>(state, 'image-key').get(found[1].toLowerCase());
      const key = bearer(exchange);
      if (!creator || creator === key || orgOfKey(state, creator)?.id !== orgOf(exchange, state)?.id) return;
      return jsonAnswer(404, { detail: 'Image not found' });
    },
    response(exchange, answer, state) {
      if (exchange.method !== 'POST' || !/^\/api\/v1\/(?:upload|image)$/.test(exchange.path.split('?')[0]))
        return;
      const image = imageIn(okJson(answer));
      const key = bearer(exchange);
      if (image && key) memoMap<string, string>(state, 'image-key').set(String(image.id), key);
    },
  },
];
