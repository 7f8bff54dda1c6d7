import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

describe('segment-worker.mjs', () => {
  it("leaves libvips' process-wide cache off when a worker thread loads sharp", async () => {
    sharp.cache(false);
    expect(sharp.cache().memory.max).toBe(0);
    const worker = new Worker(
      `import(${JSON.stringify(new URL('./segment-worker.mjs', import.meta.url).href)})
         .then(() => require('node:worker_threads').parentPort.postMessage('loaded'))`,
      { eval: true },
    );
    try {
      const message = await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(message).toBe('loaded');
      // sharp's loader runs cache(true) in every thread that loads it; the worker must undo that.
      expect(sharp.cache().memory.max).toBe(0);
    } finally {
      await worker.terminate();
    }
  });
});
