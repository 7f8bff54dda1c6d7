/** Jobs for child-process-pool.test.ts: each misbehaves the way a hostile file can make a decoder. */
import { writeFile } from 'node:fs/promises';
import type { TaskTable } from '../../mock-server/runtime/decoder-pool/protocol.js';

/** Jobs this child has run of `outOfMemoryWhenUsed`. */
let usedRuns = 0;

export const tasks = {
  /** An allocation refused under the ceiling, whatever the child ran before. */
  async outOfMemory() {
    throw new Error('std::bad_alloc');
  },
  /** Succeeds in a fresh child and fails as a thread that cannot be made in one that ran it before. */
  async outOfMemoryWhenUsed() {
    if (++usedRuns > 1) throw new Error('glib: Error creating thread: Resource temporarily unavailable');
    return { pid: process.pid };
  },
  async echo(value: unknown) {
    return { value, pid: process.pid };
  },
  async fail(message: string) {
    const err = new Error(message) as Error & { kind: string };
    err.name = 'TiffError';
    err.kind = 'corrupt';
    throw err;
  },
  /** A native crash, as libvips' double free was. */
  async abort() {
    process.kill(process.pid, 'SIGABRT');
    await new Promise(() => undefined);
  },
  /** Touches `megabytes` of memory outside the V8 heap, 16 MiB at a time. */
  async allocate(megabytes: number) {
    const held: Buffer[] = [];
    for (let i = 0; i < megabytes / 16; i++) held.push(Buffer.alloc(16 * 1024 * 1024, 1));
    return held.length * 16;
  },
  /** Writes a line to stderr, then fills the V8 heap until V8 ends the child with its report. */
  async fillHeap(line: string) {
    process.stderr.write(`${line}\n`);
    const held: number[][] = [];
    for (;;) held.push(new Array<number>(1_000_000).fill(1.5));
  },
  /** Never yields: only a kill ends it. */
  async spin() {
    for (;;);
  },
  /** Ends when cancelled. */
  async waitForAbort(_: unknown, signal: AbortSignal) {
    await new Promise((_resolve, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason));
    });
  },
  /** Ignores its cancellation; writes `startedFile` once running, so a test knows when to cancel. */
  async ignoreAbort(startedFile: string) {
    await writeFile(startedFile, String(process.pid));
    await new Promise(() => undefined);
  },
} satisfies TaskTable;
