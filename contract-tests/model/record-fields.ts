import {
  compare,
  expectStatus,
  isObject,
  isUuid,
  type Exchange,
  type Finding,
  type Json,
} from './exchange.js';
import type { Organization } from './world.js';

/**
 * What the document states of the fields an upload or an image record sends beyond a name and a
 * size (openapi.yaml, uploadImage and createImage, CreateImageRequest, x-json-body-limits), and
 * what it refuses of them:
 * - a multipart upload is one part `file` (MultipartUploadRequest, `required: [file]`): a form
 *   without it is refused, 422;
 * - `image_type` is the enum `[TIFF]`, `metadata` an object, `folder_id` a UUID or null: any other
 *   value is refused, 422;
 * - every JSON body is at most 1 MiB (413 past it), 64 levels of nested objects and arrays and
 *   10,000 object keys in the whole body (422 past either), free-form `metadata` included;
 * - a `folder_id` that is not a folder of the caller's organization answers 404: an organization
 *   made here has none (no operation of the API makes one), so any UUID is not one of its folders;
 * - the record created holds what was sent: its `metadata`, and `folder_id` null when none was.
 * A refused request may still meet the storage cap first (402, which images.ts judges).
 */
const S = {
  file: 'POST /upload Mode A, multipart/form-data: one part file (document: MultipartUploadRequest, required [file]; 422)',
  field:
    'Image record creation: an image format field (only TIFF allowed), a free-form JSON metadata field, an optional folder id (document: image_type enum [TIFF], metadata an object, folder_id a UUID or null; 422 otherwise)',
  bytes:
    'document, x-json-body-limits: every JSON request body at most max_bytes (1048576) bytes, 413 past it',
  shape:
    'document, x-json-body-limits: at most max_depth (64) levels of nested objects and arrays and max_keys (10000) object keys in the whole body, free-form metadata included; 422 past either',
  folder:
    "Image record creation: an optional folder id (must belong to the caller's organization); document: an id that is not a folder of the caller's organization answers 404 (an organization made here has none: no operation makes one)",
  echo: 'Image record creation … Response: the created image record (the metadata and folder it was created with)',
};

/** The document's x-json-body-limits. */
export const JSON_LIMITS = { bytes: 1_048_576, depth: 64, keys: 10_000 };

/** Levels of nested objects and arrays: the body object itself is the first. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, level] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, level);
    for (const child of Object.values(node)) stack.push([child, level + 1]);
  }
  return deepest;
}

/** Object keys in the whole body, nested ones included. */
export function jsonKeys(value: unknown): number {
  let keys = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node)) keys += Object.keys(node).length;
    stack.push(...Object.values(node));
  }
  return keys;
}

/** A value with every object's keys sorted: a store may keep an object's keys in another order. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : isObject(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, canonical(value[k])]),
        )
      : value;

const mediaType = (x: Exchange): string =>
  (x.sentHeaders?.['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/**
 * What the document refuses of an image record's body, as the statuses it answers: none when it
 * takes it. The JSON body limits are the document's own choice (x-assumed: the interface shows
 * none), so a target that keeps none may take such a body (200): only a refusal of another kind is
 * wrong. The folder rule is judged by its own assumed clause's check (UP-20), never by another.
 */
function refusalOf(
  sent: Json,
  org: Organization,
): { statuses: number[]; sentence: string; clause?: string } | undefined {
  if (Buffer.byteLength(JSON.stringify(sent)) > JSON_LIMITS.bytes)
    return { statuses: [413, 200], sentence: S.bytes };
  if (jsonDepth(sent) > JSON_LIMITS.depth || jsonKeys(sent) > JSON_LIMITS.keys)
    return { statuses: [422, 402, 200], sentence: S.shape };
  const { metadata, image_type, folder_id } = sent;
  const badFolder = folder_id !== undefined && folder_id !== null && !isUuid(folder_id);
  if (
    (metadata !== undefined && !isObject(metadata)) ||
    (image_type !== undefined && image_type !== 'TIFF') ||
    badFolder
  )
    return { statuses: [422, 402], sentence: S.field };
  if (isUuid(folder_id) && org.counters && !org.opaque)
    // another field the record's schema refuses may be answered first
    return { statuses: [404, 422, 402], sentence: S.folder, clause: 'UP-20' };
  return undefined;
}

/** POST /upload and the image-record creation: what the document refuses of their fields, and what a record created holds. */
export function observeRecordFields(org: Organization, x: Exchange): Finding[] {
  const findings: Finding[] = [];
  if (x.operationId === 'uploadImage') {
    const parts = isObject(x.sent) ? x.sent.parts : undefined;
    if (Array.isArray(parts) && !parts.includes('file')) expectStatus(findings, S.file, x, [422, 402]);
    return findings;
  }
  if (x.operationId !== 'createImage' || mediaType(x) !== 'application/json' || !isObject(x.sent))
    return findings;
  const refused = refusalOf(x.sent, org);
  if (refused && !expectStatus(findings, refused.sentence, x, refused.statuses) && refused.clause)
    findings[findings.length - 1].clause = refused.clause;
  if (refused || x.status !== 200 || !isObject(x.body)) return findings;
  const { metadata, folder_id } = x.sent;
  if (isObject(metadata) && 'metadata' in x.body)
    compare(findings, S.echo, 'createImage: metadata', canonical(metadata), canonical(x.body.metadata));
  if ((folder_id === undefined || folder_id === null) && 'folder_id' in x.body)
    compare(findings, S.echo, 'createImage: folder_id', null, x.body.folder_id);
  return findings;
}
