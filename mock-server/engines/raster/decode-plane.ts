/**
 * Decodes the first page of a TIFF into ONE grey plane for segmentation and previews.
 *
 *   decodePlane(path, info: TiffInfo, scratch?): Promise<Plane>     throws TiffError
 *
 * Reduction rules:
 * - Several pages: the first page only (shape still reports the page count).
 * - Several samples per pixel: the MAXIMUM over the colour channels (alpha and other extra samples
 *   ignored; a NaN loses to any number). Fluorescence composites put each stain in its own channel
 *   on black, so the maximum keeps every stained cell at full contrast, where luminance would dim a
 *   blue nucleus stain to about 7 %. For bright-field RGB the maximum is HSV "value", which keeps
 *   dark cells dark.
 * - Unsigned 8-bit stays Uint8Array (bitsPerSample 8); unsigned 16-bit stays Uint16Array with its
 *   raw values (bitsPerSample 16, never rescaled to 8 bits).
 * - Signed 8-bit and 16-bit are shifted by +128 and +32,768 into Uint8Array / Uint16Array, which
 *   keeps their order and spacing.
 * - 32-bit float, and 32-bit signed or unsigned integers, are rescaled linearly from their finite
 *   min..max to 0..65,535 in a Uint16Array plane (bitsPerSample 16); NaN and infinities become 0; a
 *   flat image becomes all 0.
 *
 * One path decodes every page: libvips spills it, decoded, to `scratch` (libvips-spill.ts), and
 * the plane is reduced from that file a slice of rows at a time (spilled-rows.ts), so a page
 * costs its plane (at most 2 bytes a pixel) plus a few MB, and its decoded size on disk while it
 * is decoded. A 32-bit page's slices are read twice, once for the range, once for the pixels,
 * which costs a second read of the file rather than a 4-byte sample per pixel held. Without
 * `scratch` (a segmentation decoding an image converted before planes were kept) the spill goes
 * to the system's temporary folder.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spillPage } from './libvips-spill.js';
import type { Plane } from './plane.js';
import { forEachSlice, readSpillHeader, type SpilledPage } from './spilled-rows.js';
import { TiffError } from './tiff-error.js';
import type { TiffInfo } from './tiff-info.js';

/** Receives the per-pixel maxima of `count` pixels from pixel `at` of the plane on. */
type Run = (at: number, count: number, maxima: Float64Array) => void;

/** `scratch`: a path the decode may write the spilled page to (and removes). */
export async function decodePlane(path: string, info: TiffInfo, scratch?: string): Promise<Plane> {
  const n = info.width * info.height;
  // Allocated before libvips runs: a plane that does not fit fails at once, not after the spill.
  const planned = info.bitsPerSample === 8 ? new Uint8Array(n) : new Uint16Array(n);
  const spill = scratch ?? join(tmpdir(), `cellseg-decoding-${randomUUID()}.v`);
  try {
    const { colourBands } = await spillPage(path, info, spill);
    const page = await readSpillHeader(spill);
    if (page.width !== info.width || page.height !== info.height)
      throw new TiffError(
        'decode',
        `cannot decode: the decoder produced ${page.width} x ${page.height} pixels, but the file declares ${info.width} x ${info.height}`,
      );
    return await reduce(spill, page, Math.min(colourBands, page.bands), planned);
  } finally {
    await rm(spill, { force: true });
  }
}

async function reduce(
  spill: string,
  page: SpilledPage,
  colour: number,
  planned: Uint8Array | Uint16Array,
): Promise<Plane> {
  const { width, height, Samples } = page;
  const bytes = Samples.BYTES_PER_ELEMENT;
  const run = (visit: Run) => forEachPixelMax(spill, page, colour, visit);
  if (bytes <= 2) {
    const signed = Samples === Int8Array || Samples === Int16Array;
    const shift = signed ? (bytes === 1 ? 128 : 32768) : 0;
    const data =
      planned.BYTES_PER_ELEMENT === bytes
        ? planned
        : new (bytes === 1 ? Uint8Array : Uint16Array)(width * height);
    await run((at, count, maxima) => {
      for (let i = 0; i < count; i++) data[at + i] = maxima[i] + shift;
    });
    return { width, height, bitsPerSample: bytes === 1 ? 8 : 16, data };
  }
  const data = planned instanceof Uint16Array ? planned : new Uint16Array(width * height);
  let min = Infinity;
  let max = -Infinity;
  await run((_at, count, maxima) => {
    for (let i = 0; i < count; i++) {
      const v = maxima[i];
      if (!Number.isFinite(v)) continue; // NaN and infinities take no part in the range, and become 0
      if (v < min) min = v;
      if (v > max) max = v;
    }
  });
  if (max > min) {
    const k = 65535 / (max - min);
    await run((at, count, maxima) => {
      for (let i = 0; i < count; i++) {
        const v = maxima[i];
        data[at + i] = v >= min && v <= max ? Math.round((v - min) * k) : 0;
      }
    });
  }
  return { width, height, bitsPerSample: 16, data };
}

/** Every pixel's maximum over its first `colour` bands, a slice of rows at a time. */
async function forEachPixelMax(spill: string, page: SpilledPage, colour: number, run: Run) {
  let maxima = new Float64Array(0);
  await forEachSlice(spill, page, (y, rows, samples) => {
    const count = rows * page.width;
    if (maxima.length < count) maxima = new Float64Array(count);
    for (let p = 0, i = 0; p < count; p++, i += page.bands) {
      let m = samples[i];
      for (let c = 1; c < colour; c++) {
        const v = samples[i + c];
        if (v > m || m !== m) m = v;
      }
      maxima[p] = m;
    }
    run(y * page.width, count, maxima);
  });
}
