/** S3's limits on a multipart upload: at most 10,000 parts, each at least 5 MiB except the last. */
export const MAX_PARTS = 10_000;
export const S3_MIN_PART_SIZE = 5 * 1024 * 1024;
const MIB = 1024 * 1024;

export interface PartLayout {
  partSize: number;
  partCount: number;
}

/** Parts of `minPartSize` (at least 5 MiB), grown in whole MiB when the file would need more than 10,000. */
export function planParts(totalSize: number, minPartSize: number): PartLayout {
  let partSize = Math.max(minPartSize, S3_MIN_PART_SIZE);
  if (Math.ceil(totalSize / partSize) > MAX_PARTS) partSize = Math.ceil(totalSize / MAX_PARTS / MIB) * MIB;
  return { partSize, partCount: Math.max(1, Math.ceil(totalSize / partSize)) };
}
