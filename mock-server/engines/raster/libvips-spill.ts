/**
 * Page 1 of a TIFF decoded by libvips as a stream into a file of its own format (`.v`: a 64-byte
 * header, then the pixels uncompressed, band-interleaved, row after row): libvips reads the page a
 * strip or a row of tiles at a time and writes it out as it goes, so what is held is libvips' few
 * strips, never the page; the decoded page goes to disk instead (its decoded size, under the
 * decoded-bytes budget, for as long as the decode runs). Every compression, predictor and layout
 * libtiff knows goes through here; decode-plane.ts reads the file back a slice at a time.
 *
 *   spillPage(path, info, out): Promise<{ colourBands }>     throws TiffError
 *
 * The `.v` format keeps libvips' sample format as it is, and the pixels are in libvips' own
 * colourspace, without a cast (signed grey 16-bit aside, which comes out shifted, unsigned).
 * `colourBands` leaves alpha out, as libvips marks it. `limitInputPixels` is the page's declared
 * size, so a header that lies cannot make libvips allocate more; its cache of file loads by path
 * is off (libvips.ts).
 */
import sharp from './libvips.js';
import { TiffError } from './tiff-error.js';
import type { TiffInfo } from './tiff-info.js';

export async function spillPage(path: string, info: TiffInfo, out: string): Promise<{ colourBands: number }> {
  const open = () =>
    sharp(path, {
      page: 0,
      pages: 1,
      limitInputPixels: Math.max(1, info.width * info.height),
      failOn: 'error',
      sequentialRead: true,
    });
  try {
    const meta = await open().metadata();
    // sharp casts a grey16 page to unsigned 16 bits, which clamps signed samples to 0: shifted
    // first by +32,768 (the plane's rule for signed 16-bit samples), they arrive whole, unsigned.
    const page = meta.space === 'grey16' && meta.depth === 'short' ? open().linear(1, 32768) : open();
    // Without an explicit colourspace sharp would turn grey into 3-channel sRGB.
    const written = await page.toColourspace(meta.space ?? 'b-w').toFile(out);
    return { colourBands: Math.max(1, written.channels - (meta.hasAlpha ? 1 : 0)) };
  } catch (err) {
    throw libvipsFailure(err);
  }
}

/** A libvips failure as the uploader reads it: too large (its pixel limit), else cannot decode. */
function libvipsFailure(err: unknown): TiffError {
  const raw = err instanceof Error ? err.message : String(err);
  // Its first three lines that are not blank, trimmed.
  const msg = (raw.match(/\S(?:.*\S)?/g) ?? []).slice(0, 3).join('; ');
  if (/pixel limit/i.test(msg)) return new TiffError('too-large', `too large: ${msg}`, { cause: err });
  return new TiffError('decode', `cannot decode: ${msg}`, { cause: err });
}
