/**
 * One lazily compiled WebAssembly module and a cached instance of it whose memory grows on
 * demand, for the SIMD kernels (gaussian-simd.ts, threshold-simd.ts). The modules come as base64
 * in *.wasm.generated.ts (scripts/build-wasm.ts), so nothing is looked up on disk at run time.
 */

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

export const WASM_PAGE = 65536;
/** A worker keeps its WebAssembly memory between images up to this size, and lets larger go. */
const KEEP_MEMORY_BYTES = 64 * 1024 * 1024;

export interface WasmKernel<E> {
  /** An instance whose memory holds `bytes`, or null when the runtime cannot provide it. */
  instanceWith(bytes: number): (E & { memory: WasmMemory }) | null;
  /** Called after each use: drops an instance whose memory grew past what a worker keeps. */
  release(): void;
}

export function wasmKernel<E>(base64: string): WasmKernel<E> {
  let compiled: object | null | undefined;
  let cached: (E & { memory: WasmMemory }) | undefined;
  const compile = (): object | null => {
    if (compiled === undefined) {
      try {
        if (!runtime) throw new Error('no WebAssembly');
        compiled = new runtime.Module(Buffer.from(base64, 'base64'));
      } catch {
        // A runtime without WebAssembly SIMD: the portable version does the work.
        compiled = null;
      }
    }
    return compiled;
  };
  return {
    instanceWith(bytes) {
      if (bytes > 2 ** 32 - WASM_PAGE) return null;
      const module = compile();
      if (!module || !runtime) return null;
      cached ??= new runtime.Instance(module).exports as E & { memory: WasmMemory };
      const memory = cached.memory;
      if (memory.buffer.byteLength < bytes) {
        try {
          memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / WASM_PAGE));
        } catch {
          cached = undefined;
          return null;
        }
      }
      return cached;
    },
    release() {
      if (cached && cached.memory.buffer.byteLength > KEEP_MEMORY_BYTES) cached = undefined;
    },
  };
}
