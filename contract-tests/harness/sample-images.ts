import { readFileSync } from 'node:fs';
import path from 'node:path';
import { encodeTiff } from '../../fixtures/generator/tiff-writer.js';
import { renderPreset, renderSynthetic, type FixturePresetName } from '../../fixtures/generator/synthetic.js';
import { REPO_ROOT } from './openapi-contract.js';

const cache = new Map<string, Buffer>();

/** A synthetic fluorescence-like TIFF from the fixture generator, with a known number of cells. */
export function presetTiff(name: FixturePresetName = 'easy-8bit-256'): {
  bytes: Buffer;
  cells: number;
  width: number;
  height: number;
} {
  const image = renderPreset(name);
  let bytes = cache.get(name);
  if (!bytes) {
    const { plane } = image;
    bytes = encodeTiff(
      [{ width: plane.width, height: plane.height, bitsPerSample: plane.bitsPerSample, data: plane.data }],
      { compression: 'lzw' },
    );
    cache.set(name, bytes);
  }
  return { bytes, cells: image.truth.count, width: image.plane.width, height: image.plane.height };
}

/** An uncompressed 16-bit TIFF of at least `minBytes`, for multi-part uploads. */
export function largeTiff(minBytes: number): Buffer {
  const side = Math.ceil(Math.sqrt(minBytes / 2)) + 1;
  const key = `large-${side}`;
  let bytes = cache.get(key);
  if (!bytes) {
    const image = renderSynthetic({
      width: side,
      height: side,
      bitDepth: 16,
      cellCount: 40,
      radius: { min: 10, max: 20 },
      seed: 77,
    });
    bytes = encodeTiff([{ width: side, height: side, bitsPerSample: 16, data: image.plane.data }], {
      compression: 'none',
    });
    cache.set(key, bytes);
  }
  return bytes;
}

/** A file of the broken-and-unusual corpus (see fixtures/corpus/expected.json). */
export function corpusFile(name: string): Buffer {
  return readFileSync(path.join(REPO_ROOT, 'fixtures', 'corpus', name));
}
