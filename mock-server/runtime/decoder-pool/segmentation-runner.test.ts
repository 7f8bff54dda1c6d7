import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureFixtures, GENERATED_DIR } from '../../../fixtures/generate.js';
import { HOSTILE_DIR } from '../../../fixtures/hostile/build-hostile.js';
import type { ModelRecord } from '../../domain/models/model-record.js';
import { segmentStoredImage } from '../../engines/models/segment-task.js';
import { createDecoderPool } from './decoder-pools.js';
import { ChildProcessSegmentationRunner, toSpec } from './segmentation-runner.js';

const model: ModelRecord = {
  id: 'm',
  name: 'nuclei-fluorescence',
  version: '1.0.0',
  description: '',
  scope: 'base',
  engine: {
    kind: 'threshold',
    params: { sigma: 1, polarity: 'bright', minAreaPx: 20, splitTouching: false, excludeBorderObjects: true },
  },
};
const limits = { maxPixels: 400_000_000, maxDecodedBytes: 4 * 1024 ** 3 };
const runner = new ChildProcessSegmentationRunner(
  createDecoderPool({ size: 1, memoryCeilingBytes: 1024 ** 3, timeBudgetMs: 120_000 }),
  limits,
);
let tiff: string;
beforeAll(async () => {
  await ensureFixtures();
  tiff = join(GENERATED_DIR, 'easy-8bit-256.tif');
});
afterAll(() => runner.close());

describe('segmentation in a decoder child process', () => {
  it('gives exactly the result of the same job run in this process', async () => {
    const local = await segmentStoredImage({ source: { tiffPath: tiff }, model: toSpec(model), ...limits });
    const remote = await runner.run(model, { tiffPath: tiff }, new AbortController().signal);
    expect(remote.objects.length).toBeGreaterThan(0);
    expect(JSON.stringify(remote)).toBe(JSON.stringify(local));
  });

  it('refuses a file over the decoded-bytes budget before decoding it', async () => {
    const bomb = join(HOSTILE_DIR, 'deflate-bomb-rgb-float-4.8GB.tif');
    await expect(runner.run(model, { tiffPath: bomb }, new AbortController().signal)).rejects.toThrow(
      /too large to decode: 20,000 x 20,000 pixels/,
    );
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    const job = runner.run(model, { tiffPath: tiff }, controller.signal);
    controller.abort();
    await expect(job).rejects.toMatchObject({ name: 'AbortError' });
    // and the pool goes on
    await expect(runner.run(model, { tiffPath: tiff }, new AbortController().signal)).resolves.toMatchObject({
      width: 256,
    });
  });
});
