import { isObject, type Exchange, type Finding } from './exchange.js';

/**
 * What POST /upload never answers a well-formed request of either mode (api-interface.md,
 * Upload): a media type (415), validation (422) or size (413) refusal. Mode A is
 * multipart/form-data with one part `file`, a TIFF up to 4 GB: a body that is no TIFF is still
 * taken and ends failed, so a file part of at most 4 GB is refused none of them, whatever its
 * boundary looks like (the oracle sees the part the body holds). Mode B is `application/json`
 * with `{name, size}`: a media type is matched without case and with its parameters
 * (`charset=utf-8`, which many clients add) beside the point (RFC 9110 8.3.1), and a body within
 * the document's bounds (a name of 1-255 characters, a size of 1 byte to 4 GB) is refused none.
 */
const S = {
  modeA:
    'Mode A, Content-Type: multipart/form-data: one part file (TIFF, up to 4 GB) … Suited up to a few hundred MB; Single file size: up to 4 GB',
  modeB:
    'Mode B, application/json: {name: string, size: integer} (size = total bytes) (a media type with its parameters, RFC 9110 8.3.1)',
};

/** Within 4 GB under any reading of it (decimal or binary). */
const WITHIN_4_GB = 4_000_000_000;
const REFUSALS = [413, 415, 422];

const mediaType = (x: Exchange): string =>
  (x.sentHeaders?.['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/** A multipart upload's file part, or a resumable one's body, the interface takes as it is. */
function wellFormed(x: Exchange): 'A' | 'B' | undefined {
  const sent = isObject(x.sent) ? x.sent : undefined;
  const file = isObject(sent?.file) ? sent.file : undefined;
  if (file) return typeof file.size === 'number' && file.size <= WITHIN_4_GB ? 'A' : undefined;
  if (mediaType(x) !== 'application/json' || !sent) return undefined;
  const { name, size } = sent;
  const keys = Object.keys(sent).sort().join(',');
  if (keys !== 'name,size' || typeof name !== 'string' || name.length < 1 || name.length > 255)
    return undefined;
  return Number.isSafeInteger(size) && (size as number) >= 1 && (size as number) <= WITHIN_4_GB
    ? 'B'
    : undefined;
}

export function observeUploadMode(x: Exchange, findings: Finding[]): void {
  if (x.operationId !== 'uploadImage' || !REFUSALS.includes(x.status)) return;
  const mode = wellFormed(x);
  if (!mode) return;
  const type = x.sentHeaders?.['content-type'];
  findings.push({
    sentence: mode === 'A' ? S.modeA : S.modeB,
    subject: `uploadImage status (mode ${mode}${type ? `, Content-Type: ${type}` : ''})`,
    predicted: 'not 413, 415 or 422',
    received: String(x.status),
  });
}
