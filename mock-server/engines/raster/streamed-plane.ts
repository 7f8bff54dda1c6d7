/**
 * The grey plane of a TIFF's first page, reduced from its slices as they stream past
 * (chunk-slices.ts), so that what is held is the plane itself and one slice, never the decoded page.
 *
 *   decodePlaneStreamed(path, info): Promise<Plane>     throws TiffError ('corrupt' naming the chunk)
 *
 * The rules are decode-plane.ts's, and give the same plane: the maximum over the colour samples
 * (`info.colorSamples`, alpha and other extra samples ignored; a NaN loses to any number), 8 and
 * 16-bit unsigned kept, signed shifted by +128 or +32,768, and 32-bit samples rescaled linearly
 * from their finite min..max to 0..65,535 (NaN and infinities 0). The 32-bit rescale needs the
 * min and max before the first pixel is written: those pages are read twice, once for the range,
 * once for the pixels, which costs a second decode rather than a 4-byte sample per pixel held.
 *
 * Separate sample planes (PlanarConfiguration 2) of 8 and 16 bits are reduced into the plane
 * itself; of 32 bits, they hold one band of chunks' maxima (width x rows per strip or tile, 8 bytes
 * a pixel) until the band's last plane has passed, and a band above BAND_MAX is left to libvips.
 *
 *   streamedPlaneBlocker(info): string | undefined    why this page cannot be read this way, if it cannot
 */
import { forEachSlice, streamingBlocker, type Slice } from './chunk-slices.js';
import type { Plane } from './plane.js';
import type { TiffInfo } from './tiff-info.js';

export const BAND_MAX = 64 * 1024 * 1024;

const separatePlanes = (info: TiffInfo) => info.planarConfig === 2 && info.samplesPerPixel > 1;
const bandRowsOf = (info: TiffInfo) => (info.tiled ? info.tileHeight! : info.rowsPerStrip);

export function streamedPlaneBlocker(info: TiffInfo): string | undefined {
  const reading = streamingBlocker(info);
  if (reading || info.bitsPerSample !== 32 || !separatePlanes(info)) return reading;
  const rows = Math.min(bandRowsOf(info), info.height);
  return info.width * rows * 8 > BAND_MAX
    ? `separate 32-bit sample planes in ${info.tiled ? 'tiles' : 'strips'} of ${rows} rows of ${info.width} pixels`
    : undefined;
}

/** Receives the per-pixel maxima of `n` pixels of row `y` from column `x`. */
type Run = (y: number, x: number, n: number, values: Float64Array) => void;

export async function decodePlaneStreamed(path: string, info: TiffInfo): Promise<Plane> {
  const { width, height } = info;
  const n = width * height;
  if (info.bitsPerSample !== 32) {
    const shift = info.sampleFormat === 'int' ? (info.bitsPerSample === 8 ? 128 : 32768) : 0;
    const data = info.bitsPerSample === 8 ? new Uint8Array(n) : new Uint16Array(n);
    if (separatePlanes(info)) await maxOfPlanesInto(path, info, data, shift);
    else
      await forEachPixelMax(path, info, (y, x, count, values) => {
        const at = y * width + x;
        for (let i = 0; i < count; i++) data[at + i] = values[i] + shift;
      });
    return { width, height, bitsPerSample: info.bitsPerSample === 8 ? 8 : 16, data };
  }
  // Allocated first: a plane that does not fit fails before a pass over the file, not after.
  const data = new Uint16Array(n);
  let min = Infinity;
  let max = -Infinity;
  await forEachPixelMax(path, info, (_y, _x, count, values) => {
    for (let i = 0; i < count; i++) {
      const v = values[i];
      if (!Number.isFinite(v)) continue; // NaN and infinities take no part in the range, and become 0
      if (v < min) min = v;
      if (v > max) max = v;
    }
  });
  if (max > min) {
    const k = 65535 / (max - min);
    await forEachPixelMax(path, info, (y, x, count, values) => {
      const at = y * width + x;
      for (let i = 0; i < count; i++) {
        const v = values[i];
        data[at + i] = v >= min && v <= max ? Math.round((v - min) * k) : 0;
      }
    });
  }
  return { width, height, bitsPerSample: 16, data };
}

/**
 * Every pixel's maximum over its colour samples, as runs along rows. Non-finite values are passed
 * through as they are: the 32-bit rescale leaves them out of its range, and its comparison with
 * that finite range makes them 0.
 */
async function forEachPixelMax(path: string, info: TiffInfo, run: Run): Promise<void> {
  const colour = Math.max(1, Math.min(info.samplesPerPixel, info.colorSamples));
  if (!separatePlanes(info)) {
    let row = new Float64Array(0);
    await forEachSlice(path, info, (s) => {
      if (row.length < s.cols) row = new Float64Array(s.cols);
      for (let r = 0; r < s.rows; r++) {
        maxOfContiguous(s, r, colour, row);
        run(s.y + r, s.x, s.cols, row);
      }
    });
    return;
  }
  const bandRows = bandRowsOf(info);
  const band = new Float64Array(info.width * Math.min(bandRows, info.height));
  let bandY = -1;
  let bandHeight = 0;
  const flush = () => {
    for (let r = 0; r < bandHeight; r++)
      run(bandY + r, 0, info.width, band.subarray(r * info.width, (r + 1) * info.width));
  };
  await forEachSlice(path, info, (s) => {
    const y0 = s.y - (s.y % bandRows);
    if (y0 !== bandY) {
      if (bandY >= 0) flush();
      bandY = y0;
      bandHeight = Math.min(bandRows, info.height - y0);
    }
    if (s.plane >= colour) return;
    for (let r = 0; r < s.rows; r++) {
      const at = (s.y - bandY + r) * info.width + s.x;
      const src = r * s.stride;
      for (let i = 0; i < s.cols; i++) {
        const v = s.samples[src + i];
        const m = band[at + i];
        if (s.plane === 0 || v > m || m !== m) band[at + i] = v;
      }
    }
  });
  if (bandY >= 0) flush();
}

/** Separate planes of 8 or 16 bits: the shift keeps the order, so the plane is its own accumulator. */
async function maxOfPlanesInto(path: string, info: TiffInfo, data: Uint8Array | Uint16Array, shift: number) {
  const colour = Math.max(1, Math.min(info.samplesPerPixel, info.colorSamples));
  await forEachSlice(path, info, (s) => {
    if (s.plane >= colour) return;
    for (let r = 0; r < s.rows; r++) {
      const at = (s.y + r) * info.width + s.x;
      const src = r * s.stride;
      for (let i = 0; i < s.cols; i++) {
        const v = s.samples[src + i] + shift;
        if (s.plane === 0 || v > data[at + i]) data[at + i] = v;
      }
    }
  });
}

function maxOfContiguous(s: Slice, r: number, colour: number, out: Float64Array): void {
  const { samples, channels } = s;
  let i = r * s.stride;
  for (let p = 0; p < s.cols; p++, i += channels) {
    let m = samples[i];
    for (let c = 1; c < colour; c++) {
      const v = samples[i + c];
      if (v > m || m !== m) m = v;
    }
    out[p] = m;
  }
}
