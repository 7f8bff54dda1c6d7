/**
 * The decoded-bytes budget: how many bytes a TIFF's pixels take once decoded, computed from its
 * header alone, and the check that refuses a file over the budget before any pixel is decoded.
 *
 *   decodedBytes(info)                      width x height x samples x bytes per sample x pages
 *   checkDecodeBudget(info, maxBytes)       throws TiffError('too-large') naming the figure and the limit
 *
 * A decoder allocates whole strips or tiles, so the width and height counted are those of the
 * chunks that cover the page: a 1 x 1 image stored in one 65,536 x 65,536 tile costs the tile.
 * Every page of the first page's geometry counts (TiffInfo.pages). A few kilobytes of deflate can
 * declare gigabytes this way; the pixel cap alone does not see samples, depth, tiles or pages.
 */
import { TiffError, formatCount } from './tiff-error.js';
import type { TiffInfo } from './tiff-info.js';

export const DEFAULT_MAX_DECODED_BYTES = 4 * 1024 ** 3;

type BudgetFields = Pick<
  TiffInfo,
  'width' | 'height' | 'samplesPerPixel' | 'bitsPerSample' | 'pages' | 'tiled' | 'tileWidth' | 'tileHeight'
>;

/** The figures of the product, and the bytes; width and height are those the chunks cover. */
export function decodedBytes(info: BudgetFields) {
  const tw = info.tiled && info.tileWidth ? info.tileWidth : info.width;
  const th = info.tiled && info.tileHeight ? info.tileHeight : info.height;
  const width = Math.ceil(info.width / tw) * tw;
  const height = Math.ceil(info.height / th) * th;
  const samples = info.samplesPerPixel;
  const bytesPerSample = Math.ceil(info.bitsPerSample / 8);
  const pages = info.pages;
  return {
    width,
    height,
    samples,
    bytesPerSample,
    pages,
    bytes: width * height * samples * bytesPerSample * pages,
  };
}

export function checkDecodeBudget(info: BudgetFields, maxBytes = DEFAULT_MAX_DECODED_BYTES): void {
  const size = decodedBytes(info);
  if (size.bytes <= maxBytes) return;
  const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;
  const area = info.tiled
    ? `${formatCount(info.width)} x ${formatCount(info.height)} pixels in tiles of ${formatCount(info.tileWidth ?? 0)} x ${formatCount(info.tileHeight ?? 0)} (${formatCount(size.width)} x ${formatCount(size.height)} decoded)`
    : `${formatCount(size.width)} x ${formatCount(size.height)} pixels`;
  throw new TiffError(
    'too-large',
    `too large to decode: ${area} x ${plural(size.samples, 'sample')} x ${plural(size.bytesPerSample, 'byte')} x ${plural(size.pages, 'page')} = ${formatBytes(size.bytes)} decoded, above this server's limit of ${formatBytes(maxBytes)}`,
  );
}

/** 4800000000 -> "4,800,000,000 bytes (4.47 GiB)". */
export function formatBytes(n: number): string {
  return `${formatCount(n)} bytes (${(n / 1024 ** 3).toFixed(2)} GiB)`;
}
