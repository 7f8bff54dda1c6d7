import type { KnownUpload, MultipartPlan } from '../object-store.js';

/**
 * At most 512 parts, each at least 5 MiB (S3's floor) except the last. S3 would take 10,000, but the
 * document states 512 (`CompleteUploadRequest.parts` maxItems): 4 GiB in the default 8 MiB parts.
 * A larger file or a smaller `--min-part-size` grows the parts instead, so no plan outgrows the
 * document.
 */
export const MAX_PARTS = 512;
export const S3_MIN_PART_SIZE = 5 * 1024 * 1024;
const MIB = 1024 * 1024;

/** Parts of `minPartSize` (at least 5 MiB), grown in whole MiB when the file would need more than MAX_PARTS. */
export function planParts(totalSize: number, minPartSize: number): Omit<MultipartPlan, 'totalSize'> {
  let partSize = Math.max(minPartSize, S3_MIN_PART_SIZE);
  if (Math.ceil(totalSize / partSize) > MAX_PARTS) partSize = Math.ceil(totalSize / MAX_PARTS / MIB) * MIB;
  return { partSize, partCount: Math.max(1, Math.ceil(totalSize / partSize)) };
}

/**
 * What the image's row says of its resumable upload: its storage key, and the plan its declared size
 * and the part size give. A store that keeps no record of its own (S3) acts on the upload from it,
 * on whichever instance; the instances sharing a store therefore share `--min-part-size`.
 */
export function knownUpload(image: { storageKey: string; size: number }, minPartSize: number): KnownUpload {
  return { key: image.storageKey, plan: { totalSize: image.size, ...planParts(image.size, minPartSize) } };
}
