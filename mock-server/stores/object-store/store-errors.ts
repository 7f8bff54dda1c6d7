/** The stores' refusals, in S3's words (codes in domain/object-store.ts; statuses in http/storage/). */
import { ObjectStoreError } from '../../domain/object-store.js';

const PART_NUMBER_TEXT = /^[1-9]\d{0,4}$/;

export function replaced(partNumber: number): ObjectStoreError {
  return new ObjectStoreError(
    'OperationAborted',
    `Part ${partNumber} was sent again and the other PUT finished first: this body was not stored. Send the part once, or again if you need these bytes.`,
    { partNumber },
  );
}

/** Part numbers arrive as path text: only a plain decimal between 1 and the plan's count passes. */
export function checkPartNumber(text: string, partCount: number): number {
  const value = PART_NUMBER_TEXT.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= partCount)) {
    const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
    throw new ObjectStoreError(
      'InvalidArgument',
      `Part number ${JSON.stringify(shown)} is out of range: this upload has parts 1 to ${partCount}`,
      { partNumber: Number.isSafeInteger(value) ? value : undefined },
    );
  }
  return value;
}

export function tooLarge(partNumber: number, partSize: number, declared?: number): ObjectStoreError {
  const size = declared === undefined ? 'is larger than' : `is ${declared} bytes, larger than`;
  return new ObjectStoreError(
    'EntityTooLarge',
    `Part ${partNumber} ${size} the upload's part size of ${partSize} bytes`,
    { partNumber },
  );
}

export function noSuchUpload(uploadId: string, cause?: unknown): ObjectStoreError {
  const shown = typeof uploadId === 'string' && uploadId.length <= 128 ? uploadId : '(invalid id)';
  return new ObjectStoreError(
    'NoSuchUpload',
    `The specified multipart upload does not exist (upload id ${JSON.stringify(shown)}): it may have been aborted or completed`,
    { cause },
  );
}

export function noSuchKey(key: string, cause?: unknown): ObjectStoreError {
  const message = `The specified key does not exist: ${JSON.stringify(key)}`;
  return new ObjectStoreError('NoSuchKey', message, { cause });
}

/** Stream and file-system failures while a part arrives mean the body did not arrive whole. */
export function asStoreError(error: unknown, partNumber?: number): ObjectStoreError {
  if (error instanceof ObjectStoreError) return error;
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOSPC') {
    const message = 'The storage disk is full: nothing was stored. Try again later.';
    return new ObjectStoreError('InsufficientStorage', message, { partNumber, cause: error });
  }
  if (partNumber !== undefined) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ABORT_ERR') {
      const message = `The body of part ${partNumber} ended before it was complete`;
      return new ObjectStoreError('IncompleteBody', message, { partNumber, cause: error });
    }
  }
  const message = `Storage failed: ${(error as Error)?.message ?? String(error)}`;
  return new ObjectStoreError('InternalError', message, { partNumber, cause: error });
}

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
