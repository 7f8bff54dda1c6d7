/** The embedded store's refusals, in S3's words (codes in domain/object-store.ts; statuses in http/storage/). */
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

export function noSuchUpload(uploadId: string): ObjectStoreError {
  const shown = typeof uploadId === 'string' && uploadId.length <= 128 ? uploadId : '(invalid id)';
  return new ObjectStoreError(
    'NoSuchUpload',
    `The specified multipart upload does not exist (upload id ${JSON.stringify(shown)}): it may have been aborted or completed`,
  );
}

export function noSuchKey(key: string): ObjectStoreError {
  return new ObjectStoreError('NoSuchKey', `The specified key does not exist: ${JSON.stringify(key)}`);
}

/** Stream and file-system failures while a part arrives mean the body did not arrive whole. */
export function asStoreError(error: unknown, partNumber?: number): ObjectStoreError {
  if (error instanceof ObjectStoreError) return error;
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOSPC') {
    return new ObjectStoreError(
      'InsufficientStorage',
      'The storage disk is full: nothing was stored. Try again later.',
      {
        partNumber,
        cause: error,
      },
    );
  }
  if (partNumber !== undefined) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ABORT_ERR') {
      return new ObjectStoreError(
        'IncompleteBody',
        `The body of part ${partNumber} ended before it was complete`,
        {
          partNumber,
          cause: error,
        },
      );
    }
  }
  return new ObjectStoreError(
    'InternalError',
    `Storage failed: ${(error as Error)?.message ?? String(error)}`,
    {
      partNumber,
      cause: error,
    },
  );
}
