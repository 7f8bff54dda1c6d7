import type { Exchange, ProxyState, Regression } from '../regression.js';
import { isUuid, match, memoMap, writeJson } from '../edit-helpers.js';
import {
  canonicalId,
  editImages,
  imageReadId,
  isMultipart,
  okJson,
  requestJson,
  ROUTES,
  setRequestJson,
  until,
  type Json,
} from './kit.js';

/** Single-request uploads that overlap in time, and the image the last of them to finish converted. */
interface UploadBatch {
  inFlight: Map<Exchange, number>;
  overlapped: Set<Exchange>;
  lastImage?: Json;
}

function uploadBatch(state: ProxyState): UploadBatch {
  let batch = state.memo.get('upload-batch') as UploadBatch | undefined;
  if (!batch) {
    batch = { inFlight: new Map(), overlapped: new Set() };
    state.memo.set('upload-batch', batch);
  }
  return batch;
}

function isSingleRequestUpload(exchange: Exchange): boolean {
  return Boolean(match(exchange, 'POST', ROUTES.upload)) && isMultipart(exchange);
}

/** Set J, uploads and image records. */
export const UPLOAD: Regression[] = [
  {
    id: 'J-UP-CREATE-FOLDER-UNCHECKED',
    area: 'upload',
    description:
      "Image-record creation checks `folder_id` only in the dashboard's form: the API stores whatever folder id it is sent, one of another organization or one that does not exist, and answers 200 with it instead of 404",
    violates:
      '"an optional folder id (must belong to the caller\'s organization; API clients usually have none)"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', ROUTES.createImage)) return;
      const body = requestJson(exchange);
      if (!isUuid(body.folder_id)) return;
      memoMap<Exchange, string>(state, 'folder-sent').set(exchange, body.folder_id as string);
      delete body.folder_id;
      setRequestJson(exchange, body);
    },
    response(exchange, answer, state) {
      const sent = memoMap<Exchange, string>(state, 'folder-sent');
      const folder = sent.get(exchange);
      sent.delete(exchange);
      const body = folder ? okJson(answer) : null;
      if (!body) return;
      body.folder_id = folder;
      writeJson(answer, body);
    },
  },
  {
    id: 'J-UP-MULTIPAGE-SHAPE-NO-PAGES',
    area: 'upload',
    description:
      "The converted image's `shape` is taken from the first page's header alone: a multi-page TIFF answers `[64, 96]` instead of `[3, 64, 96]` (its page count lost) in every image answer",
    violates:
      'Image.shape (x-assumed): "`[height, width]`, with a leading page count when the TIFF has more than one page"',
    statedIn: 'document',
    response(_exchange, answer) {
      editImages(answer, (image) => {
        const shape = image.shape;
        if (!Array.isArray(shape)) return false;
        const pagesFirst = shape.length === 4 || (shape.length === 3 && Number(shape[2]) > 4);
        if (pagesFirst) image.shape = shape.slice(1);
        return pagesFirst;
      });
    },
  },
  {
    id: 'J-UP-CONCURRENT-ANSWERS-SWAPPED',
    area: 'upload',
    description:
      'The single-request upload handler keeps the image it converted in a module-level variable that it reads after the conversion is awaited: uploads that overlap in time are each answered the image of the one that finished last (the same id twice), and the other images are never named to their clients',
    violates: '"Either one multipart request (the image is returned `ready`)"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!isSingleRequestUpload(exchange)) return;
      const batch = uploadBatch(state);
      const now = Date.now();
      for (const [other, at] of batch.inFlight) if (now - at > 60_000) batch.inFlight.delete(other);
      if (batch.inFlight.size > 0)
        for (const other of [...batch.inFlight.keys(), exchange]) batch.overlapped.add(other);
      batch.inFlight.set(exchange, now);
    },
    async response(exchange, answer, state) {
      const batch = uploadBatch(state);
      if (!batch.inFlight.delete(exchange)) return;
      const body = okJson(answer);
      if (body?.image && typeof body.image === 'object') batch.lastImage = body.image as Json;
      if (!batch.overlapped.has(exchange)) return;
      await until(() => batch.inFlight.size === 0);
      batch.overlapped.delete(exchange);
      if (!body?.image || !batch.lastImage) return;
      body.image = batch.lastImage;
      writeJson(answer, body);
    },
  },
  {
    id: 'J-UP-FIRST-READ-FROM-REPLICA',
    area: 'upload',
    description:
      'Image reads go to a read replica that gets the row as it was inserted, before the conversion updated it: the first GET /upload/{id} or GET /image/{id} after a single-request upload answers `processing` with no `shape`, though the upload answered `ready`',
    violates:
      '"(none) | `POST /upload` multipart | file stored and converted | `ready`" (the image never passes through `processing`)',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const pending = memoMap<string, true>(state, 'first-read-pending');
      if (isSingleRequestUpload(exchange)) {
        const image = okJson(answer)?.image as Json | undefined;
        if (image?.upload_status === 'ready') pending.set(canonicalId(image.id), true);
        return;
      }
      const id = imageReadId(exchange);
      if (!id || !pending.has(id) || answer.status !== 200) return;
      pending.delete(id);
      editImages(answer, (image) => {
        Object.assign(image, { upload_status: 'processing', shape: null, processed_at: null });
        return true;
      });
    },
  },
];
