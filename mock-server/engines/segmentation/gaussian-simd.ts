/**
 * Runs the two passes of the fixed-point Gaussian in WebAssembly SIMD (gaussian.wat), eight pixels
 * per instruction. The integer arithmetic is the same as gaussianSmoothPortable's, so the output
 * is the same bytes; this module only lays out the WebAssembly memory and copies pixels in and out.
 */
import { wasmBase64 } from './gaussian.wasm.generated.js';

// The project compiles without the DOM library, where TypeScript keeps the WebAssembly types.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmRuntime {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const runtime = (globalThis as unknown as { WebAssembly?: WasmRuntime }).WebAssembly;

interface GaussianExports {
  memory: WasmMemory;
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

const PAGE = 65536;
/** A worker keeps its WebAssembly memory between images up to this size, and lets larger go. */
const KEEP_MEMORY_BYTES = 64 * 1024 * 1024;

let compiled: object | null | undefined;
let cached: GaussianExports | undefined;

function compile(): object | null {
  if (compiled === undefined) {
    try {
      if (!runtime) throw new Error('no WebAssembly');
      compiled = new runtime.Module(Buffer.from(wasmBase64, 'base64'));
    } catch {
      // A runtime without WebAssembly SIMD: the portable version does the work.
      compiled = null;
    }
  }
  return compiled;
}

const align16 = (bytes: number): number => (bytes + 15) & ~15;

/** An instance whose memory holds `bytes`, or null when the runtime cannot provide it. */
function instanceWith(bytes: number): GaussianExports | null {
  const module = compile();
  if (!module || !runtime) return null;
  cached ??= new runtime.Instance(module).exports as GaussianExports;
  const memory = cached.memory;
  if (memory.buffer.byteLength < bytes) {
    try {
      memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
    } catch {
      cached = undefined;
      return null;
    }
  }
  return cached;
}

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
  if (bytes > 2 ** 32 - PAGE) return null;
  const wasm = instanceWith(bytes);
  if (!wasm) return null;
  const buffer = wasm.memory.buffer;
  new Uint16Array(buffer, a, width * height).set(data);
  new Int32Array(buffer, weightsAt, weights.length).set(weights);
  wasm.horizontal(a, b, width, height, stride, pad, weightsAt, radius, horizontalShift);
  wasm.vertical(b, a, stride, height, rows, weightsAt, radius, verticalShift);
  const result = new Uint16Array(buffer, a, stride * height);
  if (stride === width) out.set(result);
  else for (let y = 0; y < height; y++) out.set(result.subarray(y * stride, y * stride + width), y * width);
  if (buffer.byteLength > KEEP_MEMORY_BYTES) cached = undefined;
  return out;
}
