/**
 * A page our reader cannot read (JPEG and the other compressions only libvips knows, palette,
 * CMYK...), decoded by libvips as a stream into an uncompressed TIFF that our reader can: libvips
 * reads the page a strip or a row of tiles at a time and writes it out as it goes, so what is held
 * is libvips' few strips, never the page; the decoded page goes to disk instead (its decoded size,
 * under the decoded-bytes budget, for as long as the decode runs).
 *
 *   spillPage(path, info, out): Promise<void>     throws TiffError
 *
 * The pixels written are page 1 in libvips' own colourspace, without a cast, and libvips marks
 * alpha with ExtraSamples, so our reader's reduction over `colorSamples` of the spilled file leaves
 * alpha out as it does for any file. `limitInputPixels` is the page's declared size, so a header
 * that lies cannot make libvips allocate more; its cache of file loads by path is off (libvips.ts).
 */
import type { Sharp } from 'sharp';
import sharp from './libvips.js';
import { TiffError } from './tiff-error.js';
import type { TiffInfo } from './tiff-info.js';

export async function spillPage(path: string, info: TiffInfo, out: string): Promise<void> {
  try {
    const page = await firstPage(path, info);
    await page.tiff({ compression: 'none' }).toFile(out);
  } catch (err) {
    throw libvipsFailure(err);
  }
}

export function readableVipsError(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  return raw
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join('; ');
}

/** Page 1 of the file as libvips decodes it, in its own colourspace. */
async function firstPage(path: string, info: TiffInfo): Promise<Sharp> {
  const open = () =>
    sharp(path, {
      page: 0,
      pages: 1,
      limitInputPixels: Math.max(1, info.width * info.height),
      failOn: 'error',
      sequentialRead: true,
    });
  const meta = await open().metadata();
  // Without an explicit colourspace sharp would turn grey into 3-channel sRGB.
  return open().toColourspace(meta.space ?? 'b-w');
}

/** A libvips failure as the uploader reads it: too large (its pixel limit), else cannot decode. */
function libvipsFailure(err: unknown): TiffError {
  if (err instanceof TiffError) return err;
  const msg = readableVipsError(err);
  if (/pixel limit/i.test(msg)) return new TiffError('too-large', `too large: ${msg}`, { cause: err });
  return new TiffError('decode', `cannot decode: ${msg}`, { cause: err });
}
