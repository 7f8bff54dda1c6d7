import { randomBytes, randomUUID } from 'node:crypto';
import { bearer, isJson, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { readImage, requestJson } from './tools.js';

/** Deletes: what DELETE /upload/{id} and DELETE /image/{id} answer, and what stays. */

const DELETE_ANY = /^\/api\/v1\/(upload|image)\/([^/]+)$/;

export const DELETES: Regression[] = [
  {
    id: 'C-DEL-IMAGE-ROUTE-REFUSES-UPLOADING',
    area: 'deletes',
    description:
      'DELETE /image/{id} refuses an image still `uploading` (422 "abort the upload first"): only DELETE /upload/{id} knows how to abort the multipart upload',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    async request(exchange, state) {
      const found = match(exchange, 'DELETE', /^\/api\/v1\/image\/([^/]+)$/);
      if (!found) return;
      const image = await readImage(exchange, state, found[1]);
      if (image?.upload_status !== 'uploading') return;
      return jsonAnswer(422, {
        detail: `Image ${found[1]} is uploading: abort the upload (or use DELETE /api/v1/upload/{image_id}) first.`,
      });
    },
  },
  {
    id: 'C-DEL-SUCCESS-FALSE-WITHOUT-FILES',
    area: 'deletes',
    description:
      '`success` reports whether derived files were removed from storage: deleting an image that has none (uploading or failed) answers `success: false`, though it is deleted',
    violates: '"Permanently deletes the image and derived storage ... Response: `{success: boolean}`."',
    statedIn: 'interface',
    async request(exchange, state) {
      const found = match(exchange, 'DELETE', DELETE_ANY);
      if (!found) return;
      const image = await readImage(exchange, state, found[2]);
      if (!image || image.upload_status === 'ready' || image.upload_status === 'processing') return;
      const answer = await state.resend(exchange);
      if (answer.status === 200 && isJson(answer))
        writeJson(answer, { ...readJson<Record<string, unknown>>(answer), success: false });
      return answer;
    },
  },
  {
    id: 'C-DEL-FAILED-IMAGE-NOT-FOUND',
    area: 'deletes',
    description:
      'The delete looks the image up among usable ones (not `failed`): a failed or aborted image answers 404 and stays, still taking its slot',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed" / "Failed or aborted images still count until deleted."',
    statedIn: 'interface',
    async request(exchange, state) {
      const found = match(exchange, 'DELETE', DELETE_ANY);
      if (!found) return;
      const image = await readImage(exchange, state, found[2]);
      if (image?.upload_status === 'failed') return jsonAnswer(404, { detail: 'Image not found' });
    },
  },
  {
    id: 'C-DEL-SEGMENTATION-STILL-SHAREABLE',
    area: 'deletes',
    description:
      'Deleting an image leaves its segmentation rows: POST /shares for one of them still makes a share (whose page shows nothing) instead of 404',
    violates:
      'deleteUpload / deleteImage: "Derived means its predictions, their segmentations and the shares of those" (gone, so 404)',
    statedIn: 'document',
    response(exchange, answer, state) {
      const segmentations = memoMap<string, string>(state, 'segmentation-images');
      const deleted = memoMap<string, true>(state, 'deleted-images');
      const prediction = match(exchange, 'GET', /^\/api\/v1\/predict\/([^/]+)$/);
      if (prediction && answer.status === 200) {
        const read = readJson<{ segmentation_id?: string; image_id: string }>(answer);
        if (read.segmentation_id)
          segmentations.set(`${bearer(exchange)}|${read.segmentation_id}`, read.image_id);
        return;
      }
      const removed = match(exchange, 'DELETE', DELETE_ANY);
      if (removed && answer.status === 200) {
        deleted.set(`${bearer(exchange)}|${removed[2].toLowerCase()}`, true);
        return;
      }
      if (!match(exchange, 'POST', /^\/api\/v1\/shares$/) || answer.status !== 404) return;
      const segmentationId = String(
        requestJson<{ segmentation_id?: string }>(exchange)?.segmentation_id,
      ).toLowerCase();
      const imageId = segmentations.get(`${bearer(exchange)}|${segmentationId}`);
      if (!imageId || !deleted.has(`${bearer(exchange)}|${imageId}`)) return;
      const made = memoMap<string, Record<string, unknown>>(state, 'orphan-shares');
      const share = made.get(segmentationId) ?? {
        id: randomUUID(),
        segmentation_id: segmentationId,
        access: 'anyone_with_link',
        role: 'viewer',
        url: `${state.self}/share/${randomBytes(32).toString('base64url')}`,
        view_count: 0,
        last_viewed_at: null,
        created_at: new Date().toISOString(),
        revoked_at: null,
      };
      made.set(segmentationId, share);
      answer.status = 200;
      writeJson(answer, share);
    },
  },
];
