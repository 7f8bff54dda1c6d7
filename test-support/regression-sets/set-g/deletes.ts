import { bearer, isJson, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { callerOrg, createdImageId, UUID } from './state.js';

const DELETE_IMAGE = new RegExp(`^/api/v1/(upload|image)/${UUID}$`);

export const DELETES: Regression[] = [
  {
    id: 'G-DEL-UPPERCASE-ID-NOOP',
    area: 'deletes',
    description:
      'The delete runs `DELETE ... WHERE id = :id` on the id as written and answers `{success: true}` without checking the rows affected: an id in upper case (a .NET Guid, accepted everywhere else) deletes nothing, the image stays readable',
    violates:
      '"DELETE `/api/v1/image/{image_id}`: Permanently deletes the image and derived storage ... Response: `{success: boolean}`."',
    statedIn: 'interface',
    request(exchange) {
      const del = match(exchange, 'DELETE', DELETE_IMAGE);
      if (del && del[2] !== del[2].toLowerCase()) return jsonAnswer(200, { success: true });
    },
  },
  {
    id: 'G-DEL-ABORTS-ALL-ORG-UPLOADS',
    area: 'deletes',
    description:
      'DELETE /upload/{id} aborts "the in-flight resumable upload" with a query filtered on the organization, not the image: deleting one image aborts every other upload of the organization still in progress (they turn `failed`)',
    violates:
      '"DELETE `/api/v1/upload/{image_id}`: Permanently deletes the image and derived storage ...; aborts any in-flight resumable upload first." (the image\'s own upload)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const open = memoMap<string, Set<string>>(state, 'g-del-open-uploads');
      const orgId = callerOrg(exchange, state);
      if (!orgId) return;
      const mine = open.get(orgId) ?? new Set<string>();
      open.set(orgId, mine);
      if (match(exchange, 'POST', /^\/api\/v1\/upload$/) || match(exchange, 'POST', /^\/api\/v1\/image$/)) {
        const id = createdImageId(answer);
        if (id && isJson(answer) && readJson<{ upload?: unknown }>(answer).upload) mine.add(id);
        return;
      }
      const del = match(exchange, 'DELETE', DELETE_IMAGE);
      if (!del || del[1] !== 'upload' || answer.status !== 200) return;
      mine.delete(del[2].toLowerCase());
      for (const id of mine) {
        await state.upstream('POST', `/api/v1/upload/${id}/abort`, { key: bearer(exchange) });
        mine.delete(id);
      }
    },
  },
  {
    id: 'G-DEL-UPLOAD-ROUTE-MISSES-RECORDS',
    area: 'deletes',
    description:
      'DELETE /upload/{id} looks the image up through the uploads table, which only POST /upload fills: an image made by image-record creation (POST /image) answers 404 "Image not found" there and stays',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    request(exchange, state) {
      const del = match(exchange, 'DELETE', DELETE_IMAGE);
      if (!del || del[1] !== 'upload') return;
      if (memoMap<string, boolean>(state, 'g-del-records').get(del[2].toLowerCase()))
        return jsonAnswer(404, { detail: 'Image not found' });
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/image$/)) return;
      const id = createdImageId(answer);
      if (id) memoMap<string, boolean>(state, 'g-del-records').set(id, true);
    },
  },
  {
    id: 'G-DEL-SHARED-IMAGE-SUCCESS-FALSE',
    area: 'deletes',
    description:
      '`success` is the AND of every cleanup step, and revoking the live share of a segmentation returns false (the share row is kept revoked, not deleted): deleting an image that was shared answers `{success: false}` though it is gone',
    violates:
      '"Permanently deletes the image and derived storage ... Response: `{success: boolean}`." (the delete succeeded)',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const segImage = memoMap<string, string>(state, 'g-del-seg-image');
      const shared = memoMap<string, boolean>(state, 'g-del-shared-images');
      if (
        match(exchange, 'GET', new RegExp(`^/api/v1/predict/${UUID}$`)) &&
        answer.status === 200 &&
        isJson(answer)
      ) {
        const body = readJson<{ image_id?: string; segmentation_id?: string }>(answer);
        if (body.segmentation_id && body.image_id)
          segImage.set(body.segmentation_id, body.image_id.toLowerCase());
        return;
      }
      if (match(exchange, 'POST', /^\/api\/v1\/shares$/) && answer.status === 200 && isJson(answer)) {
        const image = segImage.get(readJson<{ segmentation_id: string }>(answer).segmentation_id);
        if (image) shared.set(image, true);
        return;
      }
      const del = match(exchange, 'DELETE', DELETE_IMAGE);
      if (del && answer.status === 200 && shared.get(del[2].toLowerCase()))
        writeJson(answer, { success: false });
    },
  },
];
