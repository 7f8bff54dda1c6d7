import type { UploadResponse } from '../../../openapi/generated/client/types.gen.js';
import type { ApiClient } from '../../harness/api-client.js';
import { corpusFile, flatTiff, presetTiff } from '../../harness/sample-images.js';
import { idOf, nameOf, type IdClass, type NameClass, type PartsList, type SizeClass } from './arguments.js';
import { junk, md5Tag, otherKinds, pick, type Handles, type OpenedPlan, type Real } from './world.js';

/**
 * What the exploration does to images: open a resumable upload (POST /upload or the image-record
 * creation), upload in one request, PUT a part, complete, abort, delete and read, each by either
 * key of the organization and on any id class.
 */
export interface Action {
  /** How a failing sequence names it. */
  label: string;
  /** Whether the sequence made what it acts on. */
  can(handles: Readonly<Handles>): boolean;
  send(real: Real, handles: Handles): Promise<unknown>;
}

/** The client of the key a command uses: the organization's first, or its second. */
export const via = (real: Real, key: 0 | 1): ApiClient => real.clients[key];
const byKey = (key: 0 | 1) => (key ? ' by the second key' : '');

/** Commands on an own id need one made; the other classes name an id of their own. */
export const needs = (kind: IdClass, made: readonly string[]): boolean =>
  !(kind === 'own' || kind === 'upper case' || kind === 'urn form') || made.length > 0;

/** Bytes for a size class, and whether they are the TIFF (which converts). */
function declared(size: SizeClass, handles: Handles): { size: number; tiff: boolean } {
  const tiff = presetTiff().bytes;
  if (size.kind === 'tiff') return { size: tiff.length, tiff: true };
  if (size.kind === 'range') return { size: size.at, tiff: false };
  if (size.kind === 'part' && handles.partSize) return { size: handles.partSize + size.offset, tiff: false };
  return { size: 1000, tiff: false };
}

/** How an upload is opened: POST /upload (mode B), or an image record, resumable or not (no plan). */
export type OpenRoute = 'upload' | 'record' | 'record, not resumable';

const ROUTE_NAMES: Record<OpenRoute, string> = {
  upload: 'POST /upload',
  record: 'an image record',
  'record, not resumable': 'an image record not resumable',
};

const sizeLabel = (size: SizeClass) =>
  size.kind === 'range'
    ? `size ${size.at}`
    : `${size.kind}${size.kind === 'part' ? ` ${size.offset}` : ''} size`;

export function open(route: OpenRoute, name: NameClass, size: SizeClass, key: 0 | 1): Action {
  return {
    label: `open an upload by ${ROUTE_NAMES[route]} (${name} name, ${sizeLabel(size)})${byKey(key)}`,
    can: () => true,
    async send(real, handles) {
      const { size: bytes, tiff } = declared(size, handles);
      const sent = { name: nameOf(name, real.ctx.target.namePrefix, real.bounds), size: bytes };
      const response =
        route === 'upload'
          ? await via(real, key).call<UploadResponse>('uploadImage', { body: sent })
          : await via(real, key).call<UploadResponse['image'] & Pick<UploadResponse, 'upload'>>(
              'createImage',
              { body: { ...sent, image_type: 'TIFF', resumable: route === 'record' } },
            );
      if (response.status !== 200) return;
      const image = 'image' in response.body ? response.body.image : response.body;
      if (typeof image?.id !== 'string') return;
      handles.images.push(image.id);
      const plan = response.body.upload;
      if (!plan || typeof plan.part_size !== 'number') return;
      handles.partSize = plan.part_size;
      const urls = (plan.urls ?? []).map((u) => u.url);
      handles.plans[image.id] = { size: bytes, partSize: plan.part_size, urls, tiff, etags: {} };
    },
  };
}

/**
 * What a single-request upload sends, each a class of file the document's Mode A meets: the sample
 * TIFF (ready, cells), a flat TIFF (ready, a segmentation of no cell), TIFFs of other layouts (16
 * bits big-endian, RGB, three pages), files that are no TIFF or a broken one (a PNG, bytes of no
 * image, a TIFF cut short, no bytes: each taken and failed), and a form with no `file` part, which
 * the document's MultipartUploadRequest requires (422).
 */
export type SingleFile =
  | 'a TIFF'
  | 'a flat TIFF'
  | 'a 16-bit big-endian TIFF'
  | 'an RGB TIFF'
  | 'a three-page TIFF'
  | 'a PNG'
  | 'a TIFF cut short'
  | 'no image'
  | 'an empty file'
  | 'no file part';

const CORPUS: Partial<Record<SingleFile, string>> = {
  'a 16-bit big-endian TIFF': 'big-endian-16bit.tif',
  'an RGB TIFF': 'rgb-8bit.tif',
  'a three-page TIFF': 'multipage-3.tif',
  'a PNG': 'png-renamed.tif',
  'a TIFF cut short': 'truncated-strips.tif',
};

function fileBytes(file: SingleFile): Buffer {
  if (file === 'a TIFF') return presetTiff().bytes;
  if (file === 'a flat TIFF') return flatTiff();
  const corpus = CORPUS[file];
  if (corpus) return corpusFile(corpus);
  return junk(file === 'no image' ? 1000 : 0);
}

export function uploadSingle(name: NameClass, file: SingleFile, key: 0 | 1): Action {
  return {
    label: `upload in one request (${name} name, ${file})${byKey(key)}`,
    can: () => true,
    async send(real, handles) {
      const form = new FormData();
      const filename = nameOf(name, real.ctx.target.namePrefix, real.bounds);
      const blob = new Blob([fileBytes(file)], { type: 'image/tiff' });
      form.append(file === 'no file part' ? 'image' : 'file', blob, filename);
      // around a proxy that re-encodes binary multipart bodies, as flows.ts's uploadFile
      const response = await via(real, key).call<UploadResponse>('uploadImage', {
        rawBody: form,
        baseUrl: real.ctx.target.directBaseUrl,
      });
      if (response.status !== 200 || typeof response.body.image?.id !== 'string') return;
      handles.images.push(response.body.image.id);
      if (response.body.image.upload_status === 'ready') handles.ready.push(response.body.image.id);
    },
  };
}

/** A part's own bytes: the TIFF's slice for a TIFF upload, else filler. */
function partOf(plan: OpenedPlan, part: number, delta: number): Buffer | undefined {
  const count = plan.urls.length;
  const exact = part < count ? plan.partSize : plan.size - (count - 1) * plan.partSize;
  const length = Math.max(0, exact + delta);
  // a part past 17 MiB (a plan of a huge size) costs the run more than it finds
  if (length > 17 * 1024 * 1024) return undefined;
  if (!plan.tiff || delta !== 0) return junk(length);
  return presetTiff().bytes.subarray((part - 1) * plan.partSize, (part - 1) * plan.partSize + length);
}

export function putPart(index: number, which: 'first' | 'last', delta: number): Action {
  const what = delta === 0 ? 'its bytes' : delta < 0 ? 'one byte short' : 'one byte past';
  return {
    label: `PUT the ${which} part of image ${index} (${what})`,
    can: (handles) => Object.keys(handles.plans).length > 0,
    async send(real, handles) {
      const id = pick(Object.keys(handles.plans), index)!;
      const plan = handles.plans[id];
      const part = which === 'first' ? 1 : plan.urls.length;
      const bytes = plan.urls.length ? partOf(plan, part, delta) : undefined;
      if (!bytes) return;
      const answer = await real.clients[0].raw('PUT', plan.urls[part - 1], { body: bytes, key: null });
      const etag = answer.headers.get('etag');
      if (answer.status === 200 && etag) plan.etags[part] = etag;
    },
  };
}

/** The parts list a complete sends, from the ETags the PUTs answered. */
function listOf(kind: PartsList, plan: OpenedPlan | undefined): unknown {
  if (kind === 'no body') return undefined;
  if (kind === 'empty' || !plan) return { parts: [] };
  const whole = plan.urls.map((_, i) => ({
    part_number: i + 1,
    etag: plan.etags[i + 1] ?? md5Tag(Buffer.alloc(0)),
  }));
  if (kind === 'wrong ETag')
    return { parts: whole.map((p) => ({ ...p, etag: md5Tag(Buffer.from('other')) })) };
  if (kind === 'outside the plan')
    return { parts: [...whole, { part_number: whole.length + 1, etag: whole[0]?.etag ?? '"x"' }] };
  if (kind === 'first only') return { parts: whole.slice(0, 1) };
  return { parts: kind === 'reversed' ? [...whole].reverse() : whole };
}

export function complete(index: number, kind: IdClass, list: PartsList, key: 0 | 1): Action {
  return {
    label: `complete image ${index} (${kind} id) with ${list === 'no body' ? 'no body' : `the parts list ${list}`}${byKey(key)}`,
    can: (handles) => needs(kind, handles.images),
    send(real, handles) {
      const own = pick(handles.images, index);
      const id = idOf(kind, own, real.foreign.image, index, otherKinds(handles, 'images'));
      const body = listOf(list, own ? handles.plans[own] : undefined);
      return via(real, key).call('completeUpload', {
        params: { image_id: id },
        ...(body === undefined ? {} : { body }),
      });
    },
  };
}

type ImageOp = 'abortUpload' | 'deleteImage' | 'deleteUpload' | 'getUpload' | 'getImage';

export function onImage(op: ImageOp, index: number, kind: IdClass, key: 0 | 1): Action {
  return {
    label: `${op} image ${index} (${kind} id)${byKey(key)}`,
    can: (handles) => needs(kind, handles.images),
    async send(real, handles) {
      const own = pick(handles.images, index);
      const answer = await via(real, key).call<{ upload_status?: string }>(op, {
        params: { image_id: idOf(kind, own, real.foreign.image, index, otherKinds(handles, 'images')) },
      });
      const ready = answer.status === 200 && answer.body?.upload_status === 'ready';
      if (ready && own && kind === 'own' && !handles.ready.includes(own)) handles.ready.push(own);
    },
  };
}
