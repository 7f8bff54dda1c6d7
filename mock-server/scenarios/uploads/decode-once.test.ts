/**
 * No work twice: an upload's conversion decodes the TIFF once and keeps the plane; a prediction
 * segments that plane instead of decoding the TIFF again. The decoder jobs run in this process
 * here (the same task table the children run), so the decodes can be counted.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient } from '../../../test-support/api-client.js';
import type { startMockServer } from '../../server.js';
import { dataLayout } from '../../stores/data-layout.js';
import type { ChildProcessPool } from '../../runtime/decoder-pool/child-process-pool.js';
import type { tasks as Tasks } from '../../runtime/decoder-pool/decoder-tasks.js';

const decodes = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../engines/raster/decode-plane.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../engines/raster/decode-plane.js')>();
  const decodePlane: typeof actual.decodePlane = (...args) => {
    decodes.count++;
    return actual.decodePlane(...args);
  };
  return { ...actual, decodePlane };
});

/** A pool that runs the children's jobs in this process, so vi.mock reaches them. */
function inProcessPool(tasks: typeof Tasks): ChildProcessPool {
  const run = (name: keyof typeof tasks, job: never, signal?: AbortSignal) =>
    tasks[name](job, signal ?? new AbortController().signal);
  return { run, close: async () => undefined, recycle: async () => undefined } as unknown as ChildProcessPool;
}

let mock: Awaited<ReturnType<typeof startMockServer>>;
beforeAll(async () => {
  // The unit project shares loaded modules between files (isolate: false): a module another file
  // loaded first would keep the real decodePlane. Loaded afresh here, every one sees the counter.
  vi.resetModules();
  const { tasks } = await import('../../runtime/decoder-pool/decoder-tasks.js');
  const server = await import('../../server.js');
  mock = await server.startMockServer(
    { port: 0, logLevel: 'silent' },
    { decoderPools: { convert: inProcessPool(tasks), segment: inProcessPool(tasks) } },
  );
});
afterAll(() => mock.close());

describe('a prediction reuses what the upload decoded', () => {
  it('decodes the TIFF once for an upload and its prediction; without a kept plane, once more', async () => {
    const api = apiClient(mock.url);
    decodes.count = 0;
    const first = await api.completedSegmentation();
    expect(decodes.count).toBe(1);

    // An image converted by an older version has no plane beside its previews: decoded again.
    rmSync(dataLayout(mock.services.config.dataDir).derivedFilesOf(first.imageId).plane);
    const again = await api.completedSegmentation(undefined, first.imageId);
    expect(decodes.count).toBe(2);
    expect(again.cellCount).toBe(first.cellCount);
  });

  it('a kept plane that cannot be read is decoded from the stored TIFF instead, once', async () => {
    const api = apiClient(mock.url);
    const first = await api.completedSegmentation();
    writeFileSync(
      dataLayout(mock.services.config.dataDir).derivedFilesOf(first.imageId).plane,
      'not a plane',
    );
    decodes.count = 0;
    const again = await api.completedSegmentation(undefined, first.imageId);
    expect(decodes.count).toBe(1);
    expect(again.cellCount).toBe(first.cellCount);
  });
});
