/**
 * How a pooled child is started: Node (with tsx's loader when it runs TypeScript), a V8 heap
 * ceiling, and, where util-linux's `prlimit` exists (Linux, the Debian image), an OS ceiling on the
 * process's data segment (RLIMIT_DATA) and no core files.
 *
 * Why RLIMIT_DATA: libvips allocates its pixel buffers with malloc, outside V8, so the V8 heap
 * ceiling alone does not bound a decoder. RLIMIT_DATA bounds every private writable mapping
 * (malloc, ArrayBuffers, the V8 heap) and the kernel enforces it at the allocation, before the
 * machine is short of memory; an allocation past it fails (an error the child reports) or the
 * child dies (the pool reports DecoderCrashed). RLIMIT_AS would be simpler but counts address
 * space only reserved, and WebAssembly reserves gigabytes of guard regions per memory. An RSS
 * watchdog would act after the memory is taken, and only as often as it polls.
 * Without prlimit (macOS) only the heap ceiling, the decoded-bytes budget and the time budget apply.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The V8 heap gets half the ceiling (typed arrays and libvips live outside it), 128 MiB to 4 GiB. */
export function heapMegabytes(memoryCeilingBytes: number): number {
  return Math.max(128, Math.min(4096, Math.floor(memoryCeilingBytes / 1024 ** 2 / 2)));
}

/**
 * Node 24's V8 reserves a code range for each isolate at start (up to 512 MiB of address space,
 * not memory in use), and RLIMIT_DATA counts that reservation there (Node 22's does not): a child
 * held to 512 MiB could not start at all ("Failed to reserve virtual memory for CodeRange",
 * SIGTRAP). Measured here: Node 24 needs about 580 MiB to start a plain child and about 1,100 MiB
 * with tsx's loader thread (run from the sources), and more while tsx compiles the sources with
 * its cache cold (a fresh checkout: a child held to 512 + 640 MiB died of it, V8 unable to map
 * pages for a heap of 18 MB). On Node 24 the OS ceiling therefore adds the
 * part of the reservation a 512 MiB ceiling does not already cover; the default 6 GiB ceiling is
 * far above both, and what a child can allocate stays close to its ceiling.
 */
function codeRangeReservation(typeScript: boolean): number {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 24) return 0;
  return (typeScript ? 1024 : 128) * 1024 ** 2;
}

/** `typeScript`: the child's entry or its tasks module is TypeScript (run from the sources). */
export function childCommand(memoryCeilingBytes: number, typeScript: boolean) {
  const loader = typeScript
    ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href]
    : [];
  const node = [`--max-old-space-size=${heapMegabytes(memoryCeilingBytes)}`, ...loader];
  const prlimit = findPrlimit();
  if (!prlimit) return { execPath: process.execPath, execArgv: node };
  return {
    execPath: prlimit,
    execArgv: [
      `--data=${Math.floor(memoryCeilingBytes + codeRangeReservation(typeScript))}`,
      '--core=0',
      '--',
      process.execPath,
      ...node,
    ],
  };
}

/** Whether children get an OS memory ceiling here (prlimit found). */
export function hasOsMemoryCeiling(): boolean {
  return findPrlimit() !== null;
}

let found: string | null | undefined;

function findPrlimit(): string | null {
  if (found === undefined) {
    const dirs = (process.env.PATH ?? '').split(delimiter).concat(['/usr/bin', '/bin']);
    found = dirs.map((dir) => join(dir, 'prlimit')).find((path) => existsSync(path)) ?? null;
  }
  return found;
}
