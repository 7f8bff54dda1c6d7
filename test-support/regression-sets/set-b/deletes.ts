import {
  bearer,
  copyAnswer,
  isJson,
  isUuid,
  jsonAnswer,
  match,
  memoMap,
  others,
  readJson,
} from '../edit-helpers.js';
import type { Answer, Regression } from '../regression.js';

const IMAGE_DELETE = /^\/api\/v1\/(upload|image)\/([^/]+)$/;
const PREDICTION = /^\/api\/v1\/predict\/([^/]+)$/;
const EXPORT = /^\/api\/v1\/export\/([^/]+)\/[^/]+$/;
const PLAN_OPENERS = /^\/api\/v1\/(upload|image)$/;

/** Deleting an image, and everything derived from it. */
export const DELETE_REGRESSIONS: Regression[] = [
  {
    id: 'B-DEL-IMAGE-ANY-ORG',
    area: 'deletes',
    description:
      "DELETE /image/{id} deletes by id alone: another organization's image is deleted and the answer is 200",
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed" / "A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'DELETE', /^\/api\/v1\/image\/[^/]+$/) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const theirs = await state.upstream('DELETE', exchange.path, { key: org.key });
        if (theirs.status === 200) return void Object.assign(answer, theirs);
      }
    },
  },
  {
    id: 'B-DEL-NON-UUID-404',
    area: 'deletes',
    description:
      'DELETE /upload/{id} with a non-UUID id answers 404 (the lookup ran and found nothing) instead of 422',
    violates: '"422 | a path or body id is not a valid UUID (rejected before reaching storage)"',
    statedIn: 'interface',
    request(exchange) {
      const found = match(exchange, 'DELETE', /^\/api\/v1\/upload\/([^/]+)$/);
      if (found && !isUuid(found[1])) return jsonAnswer(404, { detail: 'Image not found' });
    },
  },
  {
    id: 'B-DEL-EXPORTS-SURVIVE',
    area: 'deletes',
    description:
      "Deleting an image leaves its segmentations' export files in the export cache: the exports still download after the delete",
    violates:
      '"Permanently deletes the image and derived storage (converted TIFF/PNG, thumbnail, training artifacts)" (deleteUpload: "every export of the segmentations answers 404")',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'GET', EXPORT);
      if (!found) return;
      const cached = memoMap<string, Answer>(state, 'exports').get(`${bearer(exchange)} ${exchange.path}`);
      if (cached && memoMap<string, true>(state, 'deleted-segmentations').has(found[1]))
        return copyAnswer(cached);
    },
    response(exchange, answer, state) {
      const segmentationOf = memoMap<string, string[]>(state, 'segmentations-of-image');
      const prediction = match(exchange, 'GET', PREDICTION);
      if (prediction && answer.status === 200 && isJson(answer)) {
        const { image_id, segmentation_id } = readJson<{ image_id?: string; segmentation_id?: string }>(
          answer,
        );
        if (image_id && segmentation_id)
          segmentationOf.set(image_id, [...(segmentationOf.get(image_id) ?? []), segmentation_id]);
      }
      if (match(exchange, 'GET', EXPORT) && answer.status === 200)
        memoMap<string, Answer>(state, 'exports').set(
          `${bearer(exchange)} ${exchange.path}`,
          copyAnswer(answer),
        );
      const deleted = match(exchange, 'DELETE', IMAGE_DELETE);
      if (deleted && answer.status === 200)
        for (const segmentation of segmentationOf.get(deleted[2]) ?? [])
          memoMap<string, true>(state, 'deleted-segmentations').set(segmentation, true);
    },
  },
  {
    id: 'B-DEL-PARTS-STILL-ACCEPTED',
    area: 'deletes',
    description:
      "DELETE /upload/{id} removes the record but does not abort the multipart upload: the plan's part URLs keep accepting PUTs",
    violates:
      '"DELETE `/api/v1/upload/{image_id}` - Permanently deletes the image ...; aborts any in-flight resumable upload first."',
    statedIn: 'interface',
    request(exchange, state) {
      if (exchange.method !== 'PUT') return;
      const partUrl = new URL(exchange.path, state.self).href;
      const imageId = memoMap<string, string>(state, 'part-urls').get(partUrl);
      if (!imageId || !memoMap<string, true>(state, 'deleted-images').has(imageId)) return;
      return { status: 200, headers: { etag: '"d41d8cd98f00b204e9800998ecf8427e"' }, body: Buffer.alloc(0) };
    },
    response(exchange, answer, state) {
      if (match(exchange, 'POST', PLAN_OPENERS) && answer.status === 200 && isJson(answer)) {
        const body = readJson<{
          id?: string;
          image?: { id: string };
          upload?: { urls: Array<{ url: string }> } | null;
        }>(answer);
        const imageId = body.image?.id ?? body.id;
        for (const part of body.upload?.urls ?? [])
          if (imageId)
            memoMap<string, string>(state, 'part-urls').set(new URL(part.url, state.self).href, imageId);
      }
      const deleted = match(exchange, 'DELETE', IMAGE_DELETE);
      if (deleted && answer.status === 200)
        memoMap<string, true>(state, 'deleted-images').set(deleted[2], true);
    },
  },
];
