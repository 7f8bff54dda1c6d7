/**
 * Decodes the first page of a TIFF into ONE grey plane for segmentation and previews.
 *
 *   decodePlane(path, info: TiffInfo, scratch?): Promise<Plane>     throws TiffError
 *
 * Reduction rules:
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
 * One decoder makes every plane, whatever the page's size: our own streaming reader
 * (streamed-plane.ts over chunk-slices.ts), which holds the plane and one slice of a strip or tile,
 * so a page costs its plane (at most 2 bytes a pixel) plus a few MB. It reads compression none,
 * deflate, LZW and PackBits, grey or RGB with or without alpha, signed 8- and 16-bit included.
 * A page it does not read (JPEG and the other compressions, palette, CMYK, YCbCr, LZW chunks over
 * 64 MiB...) is first decoded by libvips as a stream into an uncompressed TIFF at `scratch`
 * (libvips-spill.ts), which our reader then streams: the decoded page goes to disk, not memory.
 * Without `scratch` (a segmentation decoding an image converted before planes were kept) the
 * spill goes to the system's temporary folder.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readableVipsError, spillPage } from './libvips-spill.js';
import type { Plane } from './plane.js';
import { decodePlaneStreamed, streamedPlaneBlocker } from './streamed-plane.js';
import { TiffError } from './tiff-error.js';
import { inspectTiff, type TiffInfo } from './tiff-inspect.js';

/**
 * Layouts our reader reads as libvips does: grey (BlackIsZero) or RGB, each with one extra sample
 * at most, which libvips takes for alpha as our reader does. Any other (WhiteIsZero, two colour
 * samples...) is left to libvips' colour handling through the spill.
 */
function readsAsLibvips(info: TiffInfo): boolean {
  const extra = info.samplesPerPixel - info.colorSamples;
  const colour = info.photometric === 1 ? 1 : info.photometric === 2 ? 3 : 0;
  return info.colorSamples === colour && extra <= 1;
}

/** `scratch`: a path the decode may write a spilled page to (and removes). */
export async function decodePlane(path: string, info: TiffInfo, scratch?: string): Promise<Plane> {
  const blocker = streamedPlaneBlocker(info);
  if (info.sampleFormat === 'int' && info.bitsPerSample !== 32) {
    // libvips clamps signed 8- and 16-bit samples to 0: only our reader keeps them.
    if (blocker) throw new TiffError('unsupported', `unsupported: ${blocker} with signed integer samples`);
    return streamed(path, info);
  }
  if (!blocker && readsAsLibvips(info)) return streamed(path, info);
  return spilled(path, info, scratch ?? join(tmpdir(), `cellseg-decoding-${randomUUID()}.tif`));
}

async function spilled(path: string, info: TiffInfo, scratch: string): Promise<Plane> {
  try {
    await spillPage(path, info, scratch);
    const page = await inspectTiff(scratch, { maxPixels: Infinity, maxDecodedBytes: Infinity });
    if (page.width !== info.width || page.height !== info.height)
      throw new TiffError(
        'decode',
        `cannot decode: the decoder produced ${page.width} x ${page.height} pixels, but the file declares ${info.width} x ${info.height}`,
      );
    // libvips writes what it decoded uncompressed, so our reader streams it whatever it was.
    return await streamed(scratch, page);
  } finally {
    await rm(scratch, { force: true });
  }
}

async function streamed(path: string, info: TiffInfo): Promise<Plane> {
  try {
    return await decodePlaneStreamed(path, info);
  } catch (err) {
    if (err instanceof TiffError) throw err;
    throw new TiffError('decode', `cannot decode: ${readableVipsError(err)}`, { cause: err });
  }
}
