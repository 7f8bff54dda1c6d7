import {
  asOwner,
  copyAnswer,
  isJson,
  jsonAnswer,
  match,
  memoMap,
  others,
  readJson,
} from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import { stalePageCache } from './shares.js';

const IMAGE = /^\/api\/v1\/(upload|image)\/([0-9a-fA-F-]{36})$/;
const PREDICTION = /^\/api\/v1\/predict\/([0-9a-fA-F-]{36})$/;
const EXPORT = /^\/api\/v1\/export\/([0-9a-fA-F-]{36})\//;
const SHARE = /^\/api\/v1\/shares\/([0-9a-fA-F-]{36})$/;

/**
 * A read-through cache of GET answers on `pattern`, keyed by path and key, that a delete never
 * purges: once the service says 404, the last 200 is answered again.
 */
function staleReadCache(name: string, pattern: RegExp): Pick<Regression, 'response'> {
  return {
    response(exchange, answer, state) {
      if (!match(exchange, 'GET', pattern)) return;
      const cache = memoMap<string, Answer>(state, name);
      const key = `${exchange.headers.get('authorization') ?? ''} ${exchange.path}`;
      if (answer.status === 200) cache.set(key, copyAnswer(answer));
      else if (answer.status === 404 && cache.has(key)) Object.assign(answer, copyAnswer(cache.get(key)!));
    },
  };
}

/** The images deleted through the proxy, and the segmentations and share tokens derived from them. */
function trackDerived(exchange: Exchange, answer: Answer, state: ProxyState) {
  const deleted = memoMap<string, true>(state, 'deleted images');
  const imageOfSegmentation = memoMap<string, string>(state, 'image of segmentation');
  const segmentationOfToken = memoMap<string, string>(state, 'segmentation of token');
  const removed = match(exchange, 'DELETE', IMAGE);
  if (removed && answer.status === 200) deleted.set(removed[2], true);
  if (
    answer.status === 200 &&
    isJson(answer) &&
    (match(exchange, 'GET', PREDICTION) || exchange.path.startsWith('/api/v1/shares'))
  ) {
    const body = readJson<{ image_id?: string; segmentation_id?: string; url?: string | null }>(answer);
    if (body.image_id && body.segmentation_id) imageOfSegmentation.set(body.segmentation_id, body.image_id);
    if (body.url && body.segmentation_id)
      segmentationOfToken.set(new URL(body.url).pathname.split('/').pop()!, body.segmentation_id);
  }
  return (token: string) => deleted.has(imageOfSegmentation.get(segmentationOfToken.get(token) ?? '') ?? '');
}

/** Deleting an image, and everything that should go with it. */
export const DELETE_REGRESSIONS: Regression[] = [
  {
    id: 'A-DEL-IMAGE-READ-CACHED',
    area: 'deletes',
    description: 'Image reads go through a cache the delete does not purge: a deleted image still reads 200',
    violates: 'States: "any | DELETE /upload/{image_id} or DELETE /image/{image_id} | ... | removed"',
    statedIn: 'interface',
    ...staleReadCache('image reads', IMAGE),
  },
  {
    id: 'A-DEL-PREDICTION-SURVIVES',
    area: 'deletes',
    description:
      'Deleting an image leaves its predictions: GET /predict/{id} still answers the COMPLETED prediction',
    violates:
      'deleteUpload/deleteImage (x-assumed): "Derived means its predictions ...: afterwards `GET /predict/{id}` ... answer 404"',
    statedIn: 'document',
    ...staleReadCache('prediction reads', PREDICTION),
  },
  {
    id: 'A-DEL-EXPORTS-SURVIVE',
    area: 'deletes',
    description: 'Rendered exports stay in the export cache after the image is deleted and are still served',
    violates:
      'DELETE: "Permanently deletes the image and derived storage"; document: "every export of the segmentations answers 404"',
    statedIn: 'document',
    ...staleReadCache('export reads', EXPORT),
  },
  {
    id: 'A-DEL-SHARE-RECORD-SURVIVES',
    area: 'deletes',
    description: 'Deleting an image leaves the shares of its segmentations readable through GET /shares/{id}',
    violates:
      'deleteUpload (x-assumed): "Derived means its predictions, their segmentations and the shares of those: afterwards ... `GET /shares/{id}` answer 404"',
    statedIn: 'document',
    ...staleReadCache('share reads', SHARE),
  },
  {
    id: 'A-DEL-SHARE-PAGE-SURVIVES',
    area: 'deletes',
    description: 'The public page of a share stays up (cached) after its image is deleted',
    violates: 'deleteUpload (x-assumed): "... and their public share pages no longer open"',
    statedIn: 'document',
    response(exchange, answer, state) {
      const derivedFromDeleted = trackDerived(exchange, answer, state);
      stalePageCache(state, exchange, answer, derivedFromDeleted);
    },
  },
  {
    id: 'A-DEL-TWICE-200',
    area: 'deletes',
    description: 'Deleting an image that is already gone answers 200 `{success: true}` instead of 404',
    violates:
      'DELETE /upload|/image errors: "404"; Errors: "404 | resource missing or outside the caller\'s organization"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const found = match(exchange, 'DELETE', IMAGE);
      if (!found) return;
      const deleted = memoMap<string, true>(state, 'deleted ids');
      if (answer.status === 200) deleted.set(found[2], true);
      else if (answer.status === 404 && deleted.has(found[2]))
        Object.assign(answer, jsonAnswer(200, { success: true }));
    },
  },
  {
    id: 'A-DEL-OTHER-ORG',
    area: 'deletes',
    description: "DELETE finds the image by id alone: another organization's image is deleted",
    violates:
      'DELETE: "image in caller\'s organization"; Authentication 3: "A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'DELETE', IMAGE) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const leaked = await asOwner(exchange, state, org);
        if (leaked.status !== 200) continue;
        Object.assign(answer, leaked);
        return;
      }
    },
  },
];
