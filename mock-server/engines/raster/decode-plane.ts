/**
 * Decodes the first page of a TIFF into ONE grey plane for segmentation and previews: which
 * decoder reads it.
 *
 *   decodePlane(path, info: TiffInfo): Promise<Plane>     throws TiffError
 *
 * Reduction rules (both decoders give the same plane):
 * - Several pages: the first page only (shape still reports the page count).
 * - Several samples per pixel: the MAXIMUM over the colour channels (alpha and other extra samples
 *   ignored). Fluorescence composites put each stain in its own channel on black, so the maximum
 *   keeps every stained cell at full contrast, where luminance would dim a blue nucleus stain to
 *   about 7 %. For bright-field RGB the maximum is HSV "value", which keeps dark cells dark.
 * - Unsigned 8-bit stays Uint8Array (bitsPerSample 8); unsigned 16-bit stays Uint16Array with its
 *   raw values (bitsPerSample 16, never rescaled to 8 bits).
 * - Signed 8-bit and 16-bit are shifted by +128 and +32,768 into Uint8Array / Uint16Array, which
 *   keeps their order and spacing.
 * - 32-bit float, and 32-bit signed or unsigned integers, are rescaled linearly from their finite
 *   min..max to 0..65,535 in a Uint16Array plane (bitsPerSample 16); NaN and infinities become 0; a
 *   flat image becomes all 0.
 *
 * Which decoder:
 * - Our own streaming reader (streamed-plane.ts over chunk-slices.ts) holds the plane and one slice
 *   of a strip or tile, so a page of any decoded size costs its plane (at most 2 bytes a pixel)
 *   plus a few MB. It reads every page above WHOLE_PAGE_MAX decoded that it can (compression none,
 *   deflate, LZW, PackBits; grey or RGB, with or without alpha), and every signed 8- and 16-bit
 *   page, which libvips clamps to 0 (it treats them as unsigned grey).
 * - libvips (libvips-plane.ts) reads the rest: small pages, whose decoded bytes it may hold, and
 *   what our reader does not know (JPEG and other compressions, palette, CMYK, YCbCr), whatever
 *   their size: those still hold the decoded page (docs/limits.md).
 */
import { decodedBytes } from './decode-budget.js';
import { decodePlaneWithLibvips, readableVipsError } from './libvips-plane.js';
import type { Plane } from './plane.js';
import { decodePlaneStreamed, streamedPlaneBlocker } from './streamed-plane.js';
import { TiffError } from './tiff-error.js';
import type { TiffInfo } from './tiff-inspect.js';

/** Decoded bytes of a page libvips may hold at once, with its reductions beside it. */
export const WHOLE_PAGE_MAX = 64 * 1024 * 1024;

/**
 * Layouts our reader reads as libvips does: grey (BlackIsZero) or RGB, each with one extra sample
 * at most, which libvips takes for alpha as our reader does.
 */
function readsAsLibvips(info: TiffInfo): boolean {
  const extra = info.samplesPerPixel - info.colorSamples;
  const colour = info.photometric === 1 ? 1 : info.photometric === 2 ? 3 : 0;
  return info.colorSamples === colour && extra <= 1;
}

export async function decodePlane(path: string, info: TiffInfo): Promise<Plane> {
  const blocker = streamedPlaneBlocker(info);
  if (info.sampleFormat === 'int' && info.bitsPerSample !== 32) {
    if (blocker) throw new TiffError('unsupported', `unsupported: ${blocker} with signed integer samples`);
    return streamed(path, info);
  }
  const pageBytes = decodedBytes(info).bytes / info.pages;
  if (pageBytes > WHOLE_PAGE_MAX && !blocker && readsAsLibvips(info)) return streamed(path, info);
  return decodePlaneWithLibvips(path, info);
}

async function streamed(path: string, info: TiffInfo): Promise<Plane> {
  try {
    return await decodePlaneStreamed(path, info);
  } catch (err) {
    if (err instanceof TiffError) throw err;
    throw new TiffError('decode', `cannot decode: ${readableVipsError(err)}`, { cause: err });
  }
}
