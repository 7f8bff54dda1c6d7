/**
 * `overlay.png`: a presentation image, 8-bit RGB, the (already contrast-stretched) grey or RGB
 * background with each cell's outline drawn over it and an optional translucent fill.
 *
 * Drawing is our own, deterministic, at the output scale:
 * - Output size: the image's, or scaled down so the longest side is `maxSize` (aspect kept, each
 *   side rounded, at least 1). The background is reduced by averaging each output pixel's block of
 *   source pixels (integer block bounds), so no resampler version can change the bytes.
 * - Cells are rasterised from their outlines: an output pixel belongs to a cell when its centre,
 *   mapped back to image coordinates, is inside the ring (half-open crossing rule). At full size this
 *   gives back exactly the cell's pixels.
 * - Outline pixels are the cell pixels with a 4-neighbour outside the cell (or outside the image):
 *   the pixels just inside each outline edge, painted `outlineColor`. Other cell pixels are blended
 *   with the same colour at `fillOpacity` (0 = background unchanged). Pixels outside cells keep the
 *   background value exactly. A cell smaller than the output's sampling step may vanish when scaled.
 * - PNG encoding by sharp with fixed options (compression 6, no adaptive filtering, no palette, no
 *   metadata), so the same input gives the same bytes.
 *
 * Defaults: outlineColor "#ffff00" (yellow), fillOpacity 0, maxSize none (full size).
 * Bad options throw OverlayOptionError, whose message names the parameter and the value.
 */
import sharp from '../raster/libvips.js';
import type { SegmentationResult } from '../segmentation/types.js';
import { resolveOverlayOptions, type OverlayOptions } from './overlay-options.js';
import { ringBounds } from './roi-names.js';

export interface OverlayBackground {
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 3;
  /** 8-bit samples, row-major, interleaved when channels is 3. */
  readonly data: Uint8Array;
}

const PNG_OPTIONS = { compressionLevel: 6, adaptiveFiltering: false, palette: false } as const;

/** Output size for an image of width x height under a cap on the longest side. */
export function overlaySize(width: number, height: number, maxSize?: number) {
  const longest = Math.max(width, height);
  if (maxSize === undefined || longest <= maxSize) return { width, height };
  const scale = maxSize / longest;
  return {
    width: width >= height ? maxSize : Math.max(1, Math.round(width * scale)),
    height: height >= width ? maxSize : Math.max(1, Math.round(height * scale)),
  };
}

function assertBackground(bg: OverlayBackground, result: SegmentationResult): void {
  if (!Number.isSafeInteger(bg.width) || bg.width < 1 || !Number.isSafeInteger(bg.height) || bg.height < 1) {
    throw new RangeError(`background size must be positive integers, got ${bg.width}x${bg.height}`);
  }
  if (bg.channels !== 1 && bg.channels !== 3)
    throw new RangeError(`background channels must be 1 or 3, got ${bg.channels}`);
  if (bg.data.length !== bg.width * bg.height * bg.channels) {
    throw new RangeError(
      `background has ${bg.data.length} samples, expected ${bg.width * bg.height * bg.channels}`,
    );
  }
  if (result.width !== bg.width || result.height !== bg.height) {
    throw new RangeError(
      `segmentation is ${result.width}x${result.height} but the background is ${bg.width}x${bg.height}`,
    );
  }
}

/** Integer block bounds: output index i covers source [start(i), start(i + 1)), never empty. */
const blockStarts = (source: number, output: number): Int32Array =>
  Int32Array.from({ length: output + 1 }, (_, i) => Math.floor((i * source) / output));

/** The background as interleaved RGB at the output size (block mean, rounded; at full size, copied straight). */
function rgbBackground(bg: OverlayBackground, outW: number, outH: number): Uint8Array {
  const out = new Uint8Array(outW * outH * 3);
  const ch = bg.channels;
  // The default overlay is full size, where the block mean's loops cost a third of the overlay.
  if (outW === bg.width && outH === bg.height) {
    for (let p = 0, n = outW * outH; p < n; p++) {
      for (let k = 0; k < 3; k++) out[3 * p + k] = bg.data[ch * p + (ch === 3 ? k : 0)];
    }
    return out;
  }
  const xs = blockStarts(bg.width, outW);
  const ys = blockStarts(bg.height, outH);
  for (let r = 0; r < outH; r++) {
    const y0 = ys[r];
    const y1 = Math.max(ys[r + 1], y0 + 1);
    for (let c = 0; c < outW; c++) {
      const x0 = xs[c];
      const x1 = Math.max(xs[c + 1], x0 + 1);
      const count = (y1 - y0) * (x1 - x0);
      for (let k = 0; k < 3; k++) {
        const offset = ch === 3 ? k : 0;
        let sum = 0;
        for (let y = y0; y < y1; y++) {
          let i = (y * bg.width + x0) * ch + offset;
          for (let x = x0; x < x1; x++, i += ch) sum += bg.data[i];
        }
        out[(r * outW + c) * 3 + k] = Math.round(sum / count);
      }
    }
  }
  return out;
}

/**
 * Label raster at the output size: 0 = background, i + 1 = result.objects[i]. Scanline fill of each
 * ring sampled at output pixel centres; an edge counts at centre height ys when min(y) <= ys < max(y),
 * and a pixel is inside a span [xa, xb) when xa <= its centre x < xb.
 */
export function rasteriseLabels(result: SegmentationResult, outW: number, outH: number): Int32Array {
  const labels = new Int32Array(outW * outH);
  const sx = outW / result.width;
  const sy = outH / result.height;
  result.objects.forEach((object, index) => {
    const ring = object.outline;
    // An empty outline (a loaded snapshot's result is checked by its hash, not its content) draws nothing.
    if (ring.length === 0) return;
    const { y: minY, height } = ringBounds(ring);
    const rowFrom = Math.max(0, Math.ceil(minY * sy - 0.5));
    const rowTo = Math.min(outH, Math.ceil((minY + height) * sy - 0.5)); // exclusive
    if (rowTo <= rowFrom) return;
    const crossings: number[][] = Array.from({ length: rowTo - rowFrom }, () => []);
    for (let i = 0; i < ring.length; i++) {
      const [x0, y0] = ring[i];
      const [x1, y1] = ring[(i + 1) % ring.length];
      if (y0 === y1) continue;
      const lo = Math.min(y0, y1);
      const hi = Math.max(y0, y1);
      const r0 = Math.max(rowFrom, Math.ceil(lo * sy - 0.5));
      const r1 = Math.min(rowTo, Math.ceil(hi * sy - 0.5));
      for (let r = r0; r < r1; r++) {
        const ys = (r + 0.5) / sy;
        crossings[r - rowFrom].push(x0 === x1 ? x0 : x0 + ((ys - y0) * (x1 - x0)) / (y1 - y0));
      }
    }
    const label = index + 1;
    crossings.forEach((xsAtRow, k) => {
      xsAtRow.sort((a, b) => a - b);
      const row = (rowFrom + k) * outW;
      for (let j = 0; j + 1 < xsAtRow.length; j += 2) {
        const c0 = Math.max(0, Math.ceil(xsAtRow[j] * sx - 0.5));
        const c1 = Math.min(outW, Math.ceil(xsAtRow[j + 1] * sx - 0.5));
        for (let c = c0; c < c1; c++) labels[row + c] = label;
      }
    });
  });
  return labels;
}

export async function overlayPng(
  background: OverlayBackground,
  result: SegmentationResult,
  options: OverlayOptions,
): Promise<Buffer> {
  const { rgb, fillOpacity, maxSize } = resolveOverlayOptions(options);
  assertBackground(background, result);
  const { width: outW, height: outH } = overlaySize(background.width, background.height, maxSize);
  const pixels = rgbBackground(background, outW, outH);
  const labels = rasteriseLabels(result, outW, outH);

  for (let r = 0; r < outH; r++) {
    for (let c = 0; c < outW; c++) {
      const p = r * outW + c;
      const label = labels[p];
      if (label === 0) continue;
      const edge =
        c === 0 ||
        r === 0 ||
        c === outW - 1 ||
        r === outH - 1 ||
        labels[p - 1] !== label ||
        labels[p + 1] !== label ||
        labels[p - outW] !== label ||
        labels[p + outW] !== label;
      for (let k = 0; k < 3; k++) {
        const i = 3 * p + k;
        if (edge) pixels[i] = rgb[k];
        else if (fillOpacity > 0)
          pixels[i] = Math.round(pixels[i] * (1 - fillOpacity) + rgb[k] * fillOpacity);
      }
    }
  }

  return sharp(pixels, { raw: { width: outW, height: outH, channels: 3 } })
    .png(PNG_OPTIONS)
    .toBuffer();
}
