/**
 * The one error type raster code throws for a file it cannot use. `message` is a sentence meant
 * for the person who uploaded the file (it becomes the image's `upload_error`); `kind` lets code
 * tell the cases apart without parsing text.
 */
export type TiffErrorKind =
  'empty' | 'not-tiff' | 'truncated' | 'corrupt' | 'too-large' | 'unsupported' | 'decode';

export class TiffError extends Error {
  readonly kind: TiffErrorKind;

  constructor(kind: TiffErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TiffError';
    this.kind = kind;
  }
}

/** A TiffError whose message names its kind first, as the uploader reads it: "corrupt: ...". */
export function tiffFault(kind: 'corrupt' | 'truncated' | 'unsupported', detail: string): TiffError {
  return new TiffError(kind, `${kind}: ${detail}`);
}

/** 1234567 -> "1,234,567": sizes in messages are read by people. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
