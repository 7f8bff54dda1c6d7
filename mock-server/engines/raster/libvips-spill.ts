/**
 * A big page our reader cannot stream (JPEG and the other compressions only libvips knows, palette,
 * CMYK...), decoded by libvips as a stream into an uncompressed TIFF that our reader can: libvips
 * reads the page a strip or a row of tiles at a time and writes it out as it goes, so what is held
 * is libvips' few strips, never the page; the decoded page goes to disk instead (its decoded size,
 * under the decoded-bytes budget, for as long as the conversion runs).
 *
 *   spillPage(path, info, out): Promise<void>     throws TiffError
 *
 * The pixels written are those libvips-plane.ts reduces (page 1, the same colourspace, no cast),
 * and libvips marks alpha with ExtraSamples, so the reduction over `colorSamples` of the spilled
 * file is libvips-plane.ts's over the channels that are not alpha.
 */
import { firstPage, libvipsFailure } from './libvips-plane.js';
import type { TiffInfo } from './tiff-info.js';

export async function spillPage(path: string, info: TiffInfo, out: string): Promise<void> {
  try {
    const { page } = await firstPage(path, info);
    await page.tiff({ compression: 'none' }).toFile(out);
  } catch (err) {
    throw libvipsFailure(err);
  }
}
