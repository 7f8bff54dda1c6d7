import { caller, copyAnswer, isJson, jsonAnswer, match, memoMap, readJson } from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import {
  COMPLETE,
  CREATE_IMAGE,
  EXPORT,
  IMAGE_READ,
  PREDICT,
  PREDICTION,
  SHARE,
  UPLOAD,
  requestJson,
} from './shared.js';

const SHARE_IMAGE = /^\/share\/([^/]+)\/image\.png$/;

interface Prediction {
  prediction_id: string;
  image_id: string;
  status: string;
  segmentation_id?: string;
}

function deleted(exchange: Exchange, answer: Answer): string | undefined {
  const found = match(exchange, 'DELETE', IMAGE_READ);
  return found && answer.status === 200 ? found[1].toLowerCase() : undefined;
}

function exportSegmentation(exchange: Exchange): string | undefined {
  if (exchange.method !== 'GET') return undefined;
  return new URL(exchange.path, 'http://proxy').pathname.match(EXPORT)?.[1].toLowerCase();
}

/** Predictions as last read, by id, and the ids acknowledged for each image in order. */
function notePrediction(exchange: Exchange, answer: Answer, state: ProxyState): void {
  const runs = memoMap<string, string[]>(state, 'runs');
  const reads = memoMap<string, Answer>(state, 'reads');
  if (match(exchange, 'POST', PREDICT) && answer.status === 200 && isJson(answer)) {
    const image = String(requestJson<{ image_id?: string }>(exchange)?.image_id).toLowerCase();
    const id = readJson<{ prediction_id: string }>(answer).prediction_id;
    const list = runs.get(image) ?? [];
    if (!list.includes(id)) runs.set(image, [...list, id]);
  }
  if (match(exchange, 'GET', PREDICTION) && answer.status === 200 && isJson(answer))
    reads.set(readJson<Prediction>(answer).prediction_id, copyAnswer(answer));
}

/** What a delete removes: the image and everything derived from it, and nothing else. */
export const DELETE_REGRESSIONS: Regression[] = [
  {
    id: 'F-DEL-SHARE-IMAGE-SURVIVES',
    area: 'deletes',
    description:
      "The share page's preview image is kept in a CDN cache keyed by token that only the revoke purges: after the image is deleted, its page is gone but `image.png` still serves the picture",
    violates:
      '"Permanently deletes the image and derived storage (converted TIFF/PNG, thumbnail, training artifacts)."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const previews = memoMap<string, Answer>(state, 'previews');
      const revokedUrls = memoMap<string, boolean>(state, 'revoked-urls');
      if (match(exchange, 'DELETE', SHARE) && answer.status === 200 && isJson(answer)) {
        const token = readJson<{ url?: string }>(answer).url?.split('/share/')[1];
        if (token) revokedUrls.set(token, true);
        return;
      }
      const image = match(exchange, 'GET', SHARE_IMAGE);
      if (!image) return;
      if (answer.status === 200) return void previews.set(image[1], copyAnswer(answer));
      const cached = previews.get(image[1]);
      if (answer.status === 404 && cached && !revokedUrls.has(image[1]))
        Object.assign(answer, copyAnswer(cached));
    },
  },
  {
    id: 'F-DEL-SAME-NAME-FILES-LOST',
    area: 'deletes',
    description:
      'Derived files are stored under `<organization>/<image name>/...` and the delete removes that prefix: deleting one image also takes the export files of every other image of the same name, whose exports then answer 404',
    violates:
      '"Permanently deletes the image and derived storage" (of that image) / "All exports are for a completed segmentation in the caller\'s organization"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const names = memoMap<string, string>(state, 'names');
      const imageOf = memoMap<string, string>(state, 'image-of');
      const lost = memoMap<string, boolean>(state, 'lost');
      const org = caller(exchange, state)?.id ?? '';
      if (
        (match(exchange, 'POST', UPLOAD) ?? match(exchange, 'POST', CREATE_IMAGE)) &&
        answer.status === 200 &&
        isJson(answer)
      ) {
        const body = readJson<{ id?: string; name?: string; image?: { id: string; name: string } }>(answer);
        const image = body.image ?? { id: body.id ?? '', name: body.name ?? '' };
        return void names.set(image.id, `${org} ${image.name}`);
      }
      if (match(exchange, 'GET', PREDICTION) && answer.status === 200 && isJson(answer)) {
        const prediction = readJson<Prediction>(answer);
        if (prediction.segmentation_id) imageOf.set(prediction.segmentation_id, prediction.image_id);
      }
      const removed = deleted(exchange, answer);
      if (removed && names.has(removed)) {
        // The prefix held the files of every image of that name at the time of the delete.
        for (const [segmentation, image] of imageOf)
          if (image !== removed && names.get(image) === names.get(removed)) lost.set(segmentation, true);
        return void names.delete(removed);
      }
      const segmentation = exportSegmentation(exchange);
      if (segmentation && lost.has(segmentation) && answer.status === 200)
        Object.assign(answer, jsonAnswer(404, { detail: 'Segmentation not found' }));
    },
  },
  {
    id: 'F-DEL-OLDER-RUNS-SURVIVE',
    area: 'deletes',
    description:
      "The delete cascades through `image.latest_prediction_id` only: an image's earlier runs (another model, a re-run) keep their prediction, segmentation and export files after the image is deleted",
    violates:
      '"Permanently deletes the image and derived storage" / deleteUpload: "afterwards `GET /predict/{id}` and `GET /shares/{id}` answer 404, every export of the segmentations answers 404"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      notePrediction(exchange, answer, state);
      const survivors = memoMap<string, boolean>(state, 'survivors');
      const files = memoMap<string, Answer>(state, 'files');
      const reads = memoMap<string, Answer>(state, 'reads');
      const removed = deleted(exchange, answer);
      if (removed) {
        for (const id of (memoMap<string, string[]>(state, 'runs').get(removed) ?? []).slice(0, -1))
          survivors.set(id, true);
        return;
      }
      const segmentation = exportSegmentation(exchange);
      if (segmentation && answer.status === 200) return void files.set(exchange.path, copyAnswer(answer));
      if (answer.status !== 404) return;
      const read = match(exchange, 'GET', PREDICTION);
      if (read && survivors.has(read[1].toLowerCase()) && reads.has(read[1].toLowerCase()))
        return void Object.assign(answer, copyAnswer(reads.get(read[1].toLowerCase())!));
      const kept =
        segmentation &&
        [...survivors.keys()].some((id) => {
          const last = reads.get(id);
          return last && readJson<Prediction>(last).segmentation_id === segmentation;
        });
      if (kept && files.has(exchange.path)) Object.assign(answer, copyAnswer(files.get(exchange.path)!));
    },
  },
  {
    id: 'F-DEL-RUNNING-PREDICTION-COMPLETES',
    area: 'deletes',
    description:
      'Deleting an image does not cancel its runs in the queue: a prediction still SUBMITTED or STARTED when the image is deleted later reads COMPLETED, with a segmentation whose exports answer 404',
    violates:
      'deleteUpload: "Derived means its predictions, their segmentations and the shares of those: afterwards `GET /predict/{id}` ... answer 404"',
    statedIn: 'document',
    response(exchange, answer, state) {
      notePrediction(exchange, answer, state);
      const ghosts = memoMap<string, boolean>(state, 'ghosts');
      const reads = memoMap<string, Answer>(state, 'reads');
      const removed = deleted(exchange, answer);
      if (removed) {
        for (const id of memoMap<string, string[]>(state, 'runs').get(removed) ?? []) {
          const last = reads.get(id);
          if (!last || ['SUBMITTED', 'STARTED'].includes(readJson<Prediction>(last).status))
            ghosts.set(id, true);
        }
        return;
      }
      const read = match(exchange, 'GET', PREDICTION);
      const id = read?.[1].toLowerCase();
      if (!id || !ghosts.has(id) || answer.status !== 404) return;
      const last = reads.get(id);
      const base = last ? readJson<Prediction>(last) : { prediction_id: id };
      const segmentation = `5e9a${id.slice(4)}`;
      Object.assign(
        answer,
        jsonAnswer(200, { ...base, status: 'COMPLETED', segmentation_id: segmentation, cell_count: 0 }),
      );
    },
  },
  {
    id: 'F-DEL-COMPLETE-AFTER-DELETE',
    area: 'deletes',
    description:
      'Complete looks up the multipart upload record, which the delete leaves behind: completing an upload whose image was deleted answers 202 `processing` (the image then reads 404) instead of 404',
    violates:
      '"DELETE `/api/v1/upload/{image_id}` - Permanently deletes the image and derived storage ...; aborts any in-flight resumable upload first."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const gone = memoMap<string, boolean>(state, 'deleted');
      const removed = deleted(exchange, answer);
      if (removed) return void gone.set(removed, true);
      const complete = match(exchange, 'POST', COMPLETE);
      if (complete && answer.status === 404 && gone.has(complete[1].toLowerCase()))
        Object.assign(answer, jsonAnswer(202, { status: 'processing' }));
    },
  },
];
