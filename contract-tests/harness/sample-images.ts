import { readFileSync } from 'node:fs';
import path from 'node:path';
import { encodeTiff } from '../../fixtures/generator/tiff-writer.js';
import { renderPreset, renderSynthetic, type FixturePresetName } from '../../fixtures/generator/synthetic.js';
import { REPO_ROOT } from './openapi-contract.js';

interface PresetTiff {
  bytes: Buffer;
  cells: number;
  width: number;
  height: number;
}

// Rendered and encoded once per process: many checks upload the same preset.
const cache = new Map<string, PresetTiff>();
const largeCache = new Map<number, Buffer>();

/** A synthetic fluorescence-like TIFF from the fixture generator, with a known number of cells. */
export function presetTiff(name: FixturePresetName = 'easy-8bit-256'): PresetTiff {
  let tiff = cache.get(name);
  if (!tiff) {
    const image = renderPreset(name);
    const { plane } = image;
    const bytes = encodeTiff(
      [{ width: plane.width, height: plane.height, bitsPerSample: plane.bitsPerSample, data: plane.data }],
      { compression: 'lzw' },
    );
    tiff = { bytes, cells: image.truth.count, width: plane.width, height: plane.height };
    cache.set(name, tiff);
  }
  return tiff;
}

/** What a sample shows and which kind of model is meant to segment it. */
export interface MeaningfulSample {
  bytes: Buffer;
  width: number;
  height: number;
  /** Cells whose pixels fall in the image, as the generator placed them. */
  cells: number;
  /** Of those, the cells cut by an edge of the image. */
  borderCells: number;
  /** What the picture looks like, to choose the model that fits it (see model-choice.ts). */
  look: 'bright-on-dark';
}

const BORDER_SAMPLE = {
  spec: {
    width: 320,
    height: 320,
    bitDepth: 8 as const,
    cellCount: 34,
    radius: { min: 6, max: 14 },
    seed: 2024,
  },
  /** The window cut out of the rendered picture: cells near its edges are cut by them. */
  window: { x: 28, y: 28, width: 256, height: 232 },
};

let borderSampleCache: MeaningfulSample | undefined;

/**
 * Bright cells of varied sizes on a dark background, some cut by the image border: a window cut
 * out of a larger synthetic picture (the generator itself keeps every cell wholly inside). Its
 * segmentation has many cells of distinct sizes and positions, so an export whose rows, indexes,
 * centroids or overlay are misplaced cannot pass by accident. Not square, so a transposed width and
 * height shows.
 */
export function borderSample(): MeaningfulSample {
  if (borderSampleCache) return borderSampleCache;
  const { spec, window } = BORDER_SAMPLE;
  const image = renderSynthetic(spec);
  const data = new Uint8Array(window.width * window.height);
  const labels = new Set<number>();
  const border = new Set<number>();
  for (let y = 0; y < window.height; y++) {
    for (let x = 0; x < window.width; x++) {
      const source = (y + window.y) * spec.width + x + window.x;
      data[y * window.width + x] = image.plane.data[source];
      const label = image.truth.labels[source];
      if (!label) continue;
      labels.add(label);
      if (x === 0 || y === 0 || x === window.width - 1 || y === window.height - 1) border.add(label);
    }
  }
  const bytes = encodeTiff([{ width: window.width, height: window.height, bitsPerSample: 8, data }], {
    compression: 'lzw',
  });
  borderSampleCache = {
    bytes,
    width: window.width,
    height: window.height,
    cells: labels.size,
    borderCells: border.size,
    look: 'bright-on-dark',
  };
  return borderSampleCache;
}

/**
 * A picture with nothing on it: one dark level everywhere, so a model meant for bright cells finds
 * none (a segmentation of no cells is still a result: COMPLETED with a count of 0).
 */
export function flatTiff(): Buffer {
  const width = 64;
  const height = 48;
  return encodeTiff([{ width, height, bitsPerSample: 8, data: new Uint8Array(width * height).fill(12) }], {
    compression: 'lzw',
  });
}

/**
 * An uncompressed 16-bit TIFF of at least `minBytes`, for multi-part uploads: a smooth pattern
 * whose every row differs, computed in a few milliseconds (rendering cells at this size took a
 * second of a test worker). Checks that need cells use the presets or borderSample().
 */
export function largeTiff(minBytes: number): Buffer {
  const side = largeTiffSide(minBytes);
  let bytes = largeCache.get(side);
  if (!bytes) {
    const data = new Uint16Array(side * side);
    for (let y = 0; y < side; y++)
      for (let x = 0; x < side; x++) data[y * side + x] = (x * 29 + y * 113 + ((x * y) >> 6)) & 0xffff;
    bytes = encodeTiff([{ width: side, height: side, bitsPerSample: 16, data }], { compression: 'none' });
    largeCache.set(side, bytes);
  }
  return bytes;
}

/** The width and height of `largeTiff(minBytes)`: 16-bit pixels, square. */
export function largeTiffSide(minBytes: number): number {
  return Math.ceil(Math.sqrt(minBytes / 2)) + 1;
}

/** A file of the broken-and-unusual corpus (see fixtures/corpus/expected.json). */
export function corpusFile(name: string): Buffer {
  return readFileSync(path.join(REPO_ROOT, 'fixtures', 'corpus', name));
}
