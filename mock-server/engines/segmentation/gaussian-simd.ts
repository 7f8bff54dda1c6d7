/**
 * Runs the two passes of the fixed-point Gaussian in WebAssembly SIMD (gaussian.wat), eight pixels
 * per instruction. The integer arithmetic is the same as gaussianSmoothPortable's, so the output
 * is the same bytes; this module only lays out the WebAssembly memory and copies pixels in and out.
 */
import { wasmBase64 } from './gaussian.wasm.generated.js';
import { wasmKernel } from './wasm-instance.js';

interface GaussianExports {
  horizontal(
    src: number,
    dst: number,
    width: number,
    height: number,
    stride: number,
    pad: number,
    weights: number,
    radius: number,
    shift: number,
  ): void;
  vertical(
    src: number,
    dst: number,
    stride: number,
    height: number,
    rows: number,
    weights: number,
    radius: number,
    shift: number,
  ): void;
}

const kernel = wasmKernel<GaussianExports>(wasmBase64);

const align16 = (bytes: number): number => (bytes + 15) & ~15;

/**
 * Smooths `data` in place of the portable passes; null when WebAssembly cannot take the image (no
 * SIMD support, or more memory than a 32-bit WebAssembly memory holds).
 */
export function gaussianSmoothSimd<T extends Uint8Array | Uint16Array>(
  data: T,
  out: T,
  width: number,
  height: number,
  weights: Int32Array,
  horizontalShift: number,
  verticalShift: number,
): T | null {
  const radius = weights.length - 1;
  const stride = (width + 7) & ~7;
  const image = align16(stride * height * 2);
  const a = 0;
  const b = image;
  const pad = b + image;
  const weightsAt = align16(pad + (stride + 2 * radius + 8) * 2);
  const rows = align16(weightsAt + weights.length * 4);
  const bytes = rows + (2 * radius + 1) * 4;
  const wasm = kernel.instanceWith(bytes);
  if (!wasm) return null;
  const buffer = wasm.memory.buffer;
  new Uint16Array(buffer, a, width * height).set(data);
  new Int32Array(buffer, weightsAt, weights.length).set(weights);
  wasm.horizontal(a, b, width, height, stride, pad, weightsAt, radius, horizontalShift);
  wasm.vertical(b, a, stride, height, rows, weightsAt, radius, verticalShift);
  const result = new Uint16Array(buffer, a, stride * height);
  if (stride === width) out.set(result);
  else for (let y = 0; y < height; y++) out.set(result.subarray(y * stride, y * stride + width), y * width);
  kernel.release();
  return out;
}
