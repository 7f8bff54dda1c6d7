/**
 * S3's rules for keys, plans, expiries, ETags and part lists, kept alike by both object stores
 * (embedded-store.ts and s3-store.ts), so a client meets the same refusals from either.
 */
import { createHash } from 'node:crypto';

import {
  ObjectStoreError,
  type MultipartPlan,
  type PartSelection,
  type UploadedPart,
} from '../../domain/object-store.js';

/** S3 caps part numbers at 10000 and presigned URLs at 7 days; we keep both limits. */
const MAX_PART_COUNT = 10_000;
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export function validatePlan(plan: MultipartPlan): void {
  const { totalSize, partSize, partCount } = plan;
  const problem =
    !Number.isSafeInteger(totalSize) || totalSize < 0
      ? `totalSize must be a non-negative integer, got ${totalSize}`
      : !Number.isSafeInteger(partSize) || partSize < 1
        ? `partSize must be a positive integer, got ${partSize}`
        : !Number.isSafeInteger(partCount) || partCount < 1 || partCount > MAX_PART_COUNT
          ? `partCount must be an integer between 1 and ${MAX_PART_COUNT}, got ${partCount}`
          : partCount * partSize < totalSize
            ? `${partCount} parts of ${partSize} bytes cannot hold ${totalSize} bytes`
            : undefined;
  if (problem !== undefined) throw new ObjectStoreError('InvalidArgument', problem);
}

export function validateExpiry(seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_PRESIGN_SECONDS)
    throw new ObjectStoreError(
      'InvalidArgument',
      `expiresInSeconds must be an integer between 1 and ${MAX_PRESIGN_SECONDS} (7 days), got ${seconds}`,
    );
}

/** Keys are relative, slash-separated paths: no empty, `.` or `..` segment, no backslash or NUL. */
export function checkObjectKey(key: string): void {
  const bad =
    typeof key !== 'string' ||
    key.length === 0 ||
    key.length > 1024 ||
    key.includes('\0') ||
    key.includes('\\') ||
    key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
  if (bad) throw new ObjectStoreError('InvalidArgument', `Invalid object key ${JSON.stringify(key)}`);
}

export function quoteEtag(etag: string): string {
  return `"${unquoteEtag(etag)}"`;
}

export function unquoteEtag(etag: string): string {
  const trimmed = etag.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')
    ? trimmed.slice(1, -1)
    : trimmed;
}

/**
 * S3's ETag of an object assembled from parts (unquoted): the MD5 of their MD5s, `-`, their count;
 * undefined when a part's ETag is no MD5 (hex decoding would drop what follows the digits, and a
 * tag with a tail would then name the same object).
 */
export function multipartEtag(parts: readonly PartSelection[]): string | undefined {
  const hex = parts.map((part) => unquoteEtag(part.etag));
  if (!hex.every((md5) => /^[0-9a-f]{32}$/i.test(md5))) return undefined;
  const md5s = hex.map((md5) => Buffer.from(md5, 'hex'));
  return `${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${parts.length}`;
}

/**
 * Checks an explicit part list and puts it in part-number order. Unsorted input is accepted (S3
 * would refuse it with InvalidPartOrder; clients that upload in parallel often send it unsorted);
 * a part number given twice is refused with InvalidPartOrder.
 */
export function orderSelection(parts: readonly PartSelection[]): PartSelection[] {
  const seen = new Set<number>();
  for (const part of parts) {
    if (!Number.isSafeInteger(part.partNumber) || part.partNumber < 1 || part.partNumber > MAX_PART_COUNT) {
      throw new ObjectStoreError(
        'InvalidPart',
        `Part number ${String(part.partNumber)} is not valid: part numbers run from 1 to ${MAX_PART_COUNT}`,
        { partNumber: Number.isSafeInteger(part.partNumber) ? part.partNumber : undefined },
      );
    }
    if (typeof part.etag !== 'string' || unquoteEtag(part.etag) === '') {
      throw new ObjectStoreError('InvalidPart', `Part ${part.partNumber} has no ETag`, {
        partNumber: part.partNumber,
      });
    }
    if (seen.has(part.partNumber)) {
      throw new ObjectStoreError('InvalidPartOrder', `Part ${part.partNumber} is listed more than once`, {
        partNumber: part.partNumber,
      });
    }
    seen.add(part.partNumber);
  }
  return [...parts].sort((a, b) => a.partNumber - b.partNumber);
}

/**
 * Matches a selection against the parts that arrived: every selected part must exist with the
 * same ETag. Returns the uploaded parts to assemble, in order.
 */
export function matchSelection(
  uploaded: readonly UploadedPart[],
  selection: readonly PartSelection[] | undefined,
): UploadedPart[] {
  if (selection === undefined || selection.length === 0) {
    if (uploaded.length === 0) {
      throw new ObjectStoreError('NoParts', 'No parts have been uploaded; there is nothing to assemble');
    }
    return [...uploaded].sort((a, b) => a.partNumber - b.partNumber);
  }
  const byNumber = new Map(uploaded.map((part) => [part.partNumber, part]));
  return orderSelection(selection).map((wanted) => {
    const found = byNumber.get(wanted.partNumber);
    if (found === undefined) {
      throw new ObjectStoreError('InvalidPart', `Part ${wanted.partNumber} has not been uploaded`, {
        partNumber: wanted.partNumber,
      });
    }
    if (unquoteEtag(found.etag).toLowerCase() !== unquoteEtag(wanted.etag).toLowerCase()) {
      throw new ObjectStoreError(
        'InvalidPart',
        `Part ${wanted.partNumber}: ETag ${quoteEtag(wanted.etag)} does not match the uploaded part's ETag ${found.etag}`,
        { partNumber: wanted.partNumber },
      );
    }
    return found;
  });
}

/** Every part except the last must be a full part, so the parts line up in the final object. */
export function checkPartSizes(parts: readonly UploadedPart[], partSize: number): void {
  parts.slice(0, -1).forEach((part) => {
    if (part.size < partSize) {
      throw new ObjectStoreError(
        'EntityTooSmall',
        `Part ${part.partNumber} is ${part.size} bytes; every part except the last must be ${partSize} bytes (the plan's part size)`,
        { partNumber: part.partNumber },
      );
    }
  });
}
