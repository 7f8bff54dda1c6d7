import { isObject, type Exchange, type Finding } from './exchange.js';
import { JSON_LIMITS, jsonDepth, jsonKeys } from './record-fields.js';

/**
 * What POST /upload and the image-record creation never answer a well-formed request (api-interface.md,
 * Upload): a media type (415), validation (422) or size (413) refusal. Mode A is
 * multipart/form-data with one part `file`, a TIFF up to 4 GB: a body that is no TIFF is still
 * taken and ends failed, so a file part of at most 4 GB is refused none of them, whatever its
 * boundary looks like (the oracle sees the part the body holds). Mode B is `application/json`
 * with `{name, size}`: a media type is matched without case and with its parameters
 * (`charset=utf-8`, which many clients add) beside the point (RFC 9110 8.3.1), and a body within
 * the document's bounds (a name of 1-255 characters, a size of 1 byte to 4 GB) is refused none.
 * An image record of a name, a size, the only format (`TIFF`), `resumable`, an object of metadata
 * within the document's JSON body limits and no folder is refused none either.
 *
 * "4 GB" read as decimal (4,000,000,000) or binary: within the decimal reading a refusal breaks the
 * interface; past it and up to 4 GiB (4,294,967,296, the document's `maximum` of size) only the
 * document's reading, so that refusal is filed under its clause, UP-24, alone.
 */
const S = {
  modeA:
    'Mode A, Content-Type: multipart/form-data: one part file (TIFF, up to 4 GB) … Suited up to a few hundred MB; Single file size: up to 4 GB',
  modeB:
    'Mode B, application/json: {name: string, size: integer} (size = total bytes) (a media type with its parameters, RFC 9110 8.3.1)',
  record:
    'Image record creation: name (string), size (integer, total bytes), an image format field (only TIFF allowed) … resumable (boolean); Single file size: up to 4 GB',
  binary:
    'UP-24, assumed: the document reads "4 GB" as 4 GiB, the maximum of size (4294967296 bytes), so a size up to it is taken',
};

/** Within 4 GB under any reading of it (decimal or binary). */
const WITHIN_4_GB = 4_000_000_000;
/** The document's `maximum` of size: its reading of "4 GB". */
const FOUR_GIB = 4 * 1024 ** 3;
const REFUSALS = [413, 415, 422];
const MODES = { A: S.modeA, B: S.modeB, record: S.record };

const mediaType = (x: Exchange): string =>
  (x.sentHeaders?.['content-type'] ?? '').split(';')[0].trim().toLowerCase();

const sizeTaken = (size: unknown): size is number =>
  Number.isSafeInteger(size) && (size as number) >= 1 && (size as number) <= FOUR_GIB;

const nameTaken = (name: unknown): boolean =>
  typeof name === 'string' && name.length >= 1 && name.length <= 255;

const RECORD_FIELDS = ['name', 'size', 'image_type', 'resumable', 'metadata', 'folder_id'];

/**
 * The fields of an image record the interface names with a value it takes: metadata an object
 * within the document's JSON body limits, and no folder (null or left out).
 */
function recordTaken(sent: Record<string, unknown>): boolean {
  const { image_type, resumable, metadata, folder_id } = sent;
  if (Object.keys(sent).some((k) => !RECORD_FIELDS.includes(k))) return false;
  if (image_type !== undefined && image_type !== 'TIFF') return false;
  if (metadata !== undefined && !isObject(metadata)) return false;
  if (folder_id !== undefined && folder_id !== null) return false;
  const { bytes, depth, keys } = JSON_LIMITS;
  if (Buffer.byteLength(JSON.stringify(sent)) > bytes || jsonDepth(sent) > depth || jsonKeys(sent) > keys)
    return false;
  return resumable === undefined || typeof resumable === 'boolean';
}

/** A multipart upload's file part, a resumable one's body or an image record the interface takes as it is, and its size. */
function wellFormed(x: Exchange): { mode: keyof typeof MODES; size: number } | undefined {
  const sent = isObject(x.sent) ? x.sent : undefined;
  const file = isObject(sent?.file) ? sent.file : undefined;
  if (x.operationId === 'uploadImage' && file)
    return sizeTaken(file.size) ? { mode: 'A', size: file.size } : undefined;
  if (mediaType(x) !== 'application/json' || !sent || !nameTaken(sent.name) || !sizeTaken(sent.size))
    return undefined;
  if (x.operationId === 'createImage')
    return recordTaken(sent) ? { mode: 'record', size: sent.size } : undefined;
  const keys = Object.keys(sent).sort().join(',');
  return x.operationId === 'uploadImage' && keys === 'name,size' ? { mode: 'B', size: sent.size } : undefined;
}

export function observeUploadMode(x: Exchange, findings: Finding[]): void {
  if (!REFUSALS.includes(x.status)) return;
  const judged = wellFormed(x);
  if (!judged) return;
  const type = x.sentHeaders?.['content-type'];
  const stated = judged.size <= WITHIN_4_GB;
  const what = judged.mode === 'record' ? 'createImage status' : `uploadImage status (mode ${judged.mode}`;
  findings.push({
    sentence: stated ? MODES[judged.mode] : `${MODES[judged.mode]}; ${S.binary}`,
    subject:
      judged.mode === 'record'
        ? `${what}${stated ? '' : ` (size ${judged.size})`}`
        : `${what}${type ? `, Content-Type: ${type}` : ''}${stated ? '' : `, size ${judged.size}`})`,
    predicted: 'not 413, 415 or 422',
    received: String(x.status),
    ...(stated ? {} : { clause: 'UP-24' }),
  });
}
