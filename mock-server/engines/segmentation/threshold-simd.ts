/**
 * Otsu threshold and mask of a plane with WebAssembly (threshold.wat): the pixels are copied into
 * WebAssembly memory once for both passes, the histogram counted there without bounds checks, the
 * threshold chosen from it by otsu.ts, and the mask computed sixteen pixels per SIMD compare. The
 * counts and compares are integers, so the result is exactly otsuThreshold and thresholdMask's.
 */
import { otsuThresholdOfHistogram } from './otsu.js';
import { wasmBase64 } from './threshold.wasm.generated.js';
import { wasmKernel } from './wasm-instance.js';

interface ThresholdExports {
  histogram(src: number, n: number, hist: number): void;
  mask(src: number, n: number, threshold: number, dark: number, dst: number): void;
}

const kernel = wasmKernel<ThresholdExports>(wasmBase64);
const HISTOGRAM_BYTES = 4 * 65536 * 4;

/**
 * The Otsu threshold of `data` and the 0/1 mask of value > threshold (`dark`: value <= threshold),
 * or null when WebAssembly cannot take the image (no SIMD support, or too large).
 */
export function otsuMaskSimd(
  data: Uint8Array | Uint16Array,
  dark: boolean,
): { threshold: number; mask: Uint8Array } | null {
  const n = data.length;
  if (n === 0) throw new Error('otsuThreshold: empty image');
  // Both passes run over whole 16-pixel blocks: the pixels and the mask are padded to them.
  const padded = (n + 15) & ~15;
  const histAt = padded * 2;
  const maskAt = histAt + HISTOGRAM_BYTES;
  const wasm = kernel.instanceWith(maskAt + padded);
  if (!wasm) return null;
  const buffer = wasm.memory.buffer;
  // 8-bit pixels are widened to u16 by the copy.
  new Uint16Array(buffer, 0, n).set(data);
  wasm.histogram(0, n, histAt);
  const full = new Int32Array(buffer, histAt, data instanceof Uint8Array ? 256 : 65536);
  const threshold = otsuThresholdOfHistogram(full);
  wasm.mask(0, padded, threshold, dark ? 1 : 0, maskAt);
  const mask = new Uint8Array(buffer.slice(maskAt, maskAt + n));
  kernel.release();
  return { threshold, mask };
}
