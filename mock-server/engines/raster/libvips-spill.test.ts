/**
 * A page spilled by libvips and then streamed by our reader gives the plane libvips gives when it
 * decodes the page whole, for every readable file of the corpus (JPEG-in-TIFF, tiles, predictors,
 * separate planes, float, BigTIFF...).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePlaneWithLibvips } from '../../../test-support/raster/libvips-whole-plane.js';
import { spillPage } from './libvips-spill.js';
import { decodePlaneStreamed } from './streamed-plane.js';
import { inspectTiff } from './tiff-inspect.js';

const corpus = new URL('../../../fixtures/corpus/', import.meta.url);
const readable = (
  JSON.parse(readFileSync(new URL('expected.json', corpus), 'utf8')) as Array<{
    file: string;
    outcome: string;
  }>
)
  .filter((f) => f.outcome === 'ready')
  .map((f) => f.file);
const dir = mkdtempSync(join(tmpdir(), 'spill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spillPage', () => {
  it('covers the corpus, JPEG-in-TIFF included', () => {
    expect(readable).toContain('jpeg-in-tiff-rgb.tif');
  });

  it.for(readable)('%s: spilled and streamed, the plane libvips decodes whole', async (file, { skip }) => {
    const path = new URL(file, corpus).pathname;
    const info = await inspectTiff(path);
    // libvips clamps these, so they are never spilled: reported as skipped, not passed.
    if (info.sampleFormat === 'int' && info.bitsPerSample !== 32) skip();
    const out = join(dir, `${file}.spilled.tif`);
    await spillPage(path, info, out);
    const spilled = await inspectTiff(out);
    expect([spilled.compression, spilled.width, spilled.height]).toEqual([1, info.width, info.height]);
    const ours = await decodePlaneStreamed(out, spilled);
    const whole = await decodePlaneWithLibvips(path, info);
    expect(ours.bitsPerSample).toBe(whole.bitsPerSample);
    expect(Array.from(ours.data)).toEqual(Array.from(whole.data));
  });
});
