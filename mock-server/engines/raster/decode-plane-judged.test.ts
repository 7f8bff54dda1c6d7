/**
 * decodePlane, which reduces a page libvips spilled a slice at a time, gives the plane libvips
 * gives when it decodes the page whole, layout by layout (and for every readable file of the
 * corpus, JPEG-in-TIFF included).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../../fixtures/generator/prng.js';
import {
  encodeTiff,
  type TiffEncodeOptions,
  type TiffPage,
} from '../../../fixtures/generator/tiff-writer.js';
import { decodePlaneWithLibvips } from '../../../test-support/raster/libvips-whole-plane.js';
import { decodePlane } from './decode-plane.js';
import { inspectTiff } from './tiff-inspect.js';

const dir = mkdtempSync(join(tmpdir(), 'streamed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let k = 0;
const write = (bytes: Uint8Array) => {
  const p = join(dir, `s${k++}.tif`);
  writeFileSync(p, bytes);
  return p;
};
const W = 37;
const H = 23;
const N = W * H;
const rng = createRng(7);
const ints = (n: number, lo: number, hi: number) => Array.from({ length: n }, () => rng.int(lo, hi));
const floats = (n: number) =>
  Float32Array.from({ length: n }, (_, i) =>
    i === 11 ? NaN : i === 12 ? Infinity : i === 13 ? -Infinity : (rng.int(0, 1 << 20) - 300_000) / 977,
  );
/** A W x H RGB float32 page of fresh random values (NaN and infinities among them). */
const floatRgb = (): TiffPage => ({
  width: W,
  height: H,
  samplesPerPixel: 3,
  bitsPerSample: 32,
  sampleFormat: 'float',
  data: floats(3 * N),
});

async function bothWays(path: string) {
  const info = await inspectTiff(path);
  const ours = await decodePlane(path, info);
  const theirs = await decodePlaneWithLibvips(path, info);
  expect(ours.bitsPerSample).toBe(theirs.bitsPerSample);
  expect(ours.data.constructor).toBe(theirs.data.constructor);
  expect(Buffer.from(ours.data.buffer, ours.data.byteOffset, ours.data.byteLength)).toEqual(
    Buffer.from(theirs.data.buffer, theirs.data.byteOffset, theirs.data.byteLength),
  );
  return ours;
}

const cases: Array<[string, TiffPage, TiffEncodeOptions]> = [
  [
    '8-bit grey, PackBits',
    { width: W, height: H, bitsPerSample: 8, data: ints(N, 0, 256) },
    { compression: 'packbits' },
  ],
  [
    '16-bit grey, big-endian LZW',
    { width: W, height: H, bitsPerSample: 16, data: ints(N, 0, 65536) },
    { compression: 'lzw', littleEndian: false, rowsPerStrip: 5 },
  ],
  [
    '16-bit RGB, deflate, separate planes',
    { width: W, height: H, samplesPerPixel: 3, bitsPerSample: 16, data: ints(3 * N, 0, 65536) },
    { compression: 'deflate', planarConfig: 'separate', rowsPerStrip: 4 },
  ],
  [
    '8-bit RGBA',
    { width: W, height: H, samplesPerPixel: 4, bitsPerSample: 8, data: ints(4 * N, 0, 256) },
    {},
  ],
  [
    '16-bit grey + alpha',
    { width: W, height: H, samplesPerPixel: 2, bitsPerSample: 16, data: ints(2 * N, 0, 65536) },
    { rowsPerStrip: 3 },
  ],
  [
    'float grey with NaN and infinities',
    { width: W, height: H, bitsPerSample: 32, sampleFormat: 'float', data: floats(N) },
    { compression: 'deflate' },
  ],
  ['float RGB, contiguous, big-endian', floatRgb(), { littleEndian: false, rowsPerStrip: 6 }],
  [
    'float RGB, separate planes, LZW',
    floatRgb(),
    { compression: 'lzw', planarConfig: 'separate', rowsPerStrip: 7 },
  ],
  [
    '32-bit unsigned RGB',
    { width: W, height: H, samplesPerPixel: 3, bitsPerSample: 32, data: ints(3 * N, 0, 2 ** 32) },
    { compression: 'deflate' },
  ],
  [
    '32-bit signed grey',
    { width: W, height: H, bitsPerSample: 32, sampleFormat: 'int', data: ints(N, -(2 ** 31), 2 ** 31) },
    {},
  ],
];

describe('decodePlane gives the plane libvips gives decoded whole', () => {
  it.each(cases)('%s', async (_name, page, options) => {
    await bothWays(write(encodeTiff([page], options)));
  });

  it('16-bit tiles with edge tiles, horizontal predictor, and float with the floating-point predictor', async () => {
    const grey = encodeTiff([{ width: W, height: H, bitsPerSample: 16, data: ints(N, 0, 65536) }]);
    await bothWays(
      write(
        await sharp(grey)
          .toColourspace('grey16')
          .tiff({ tile: true, tileWidth: 16, tileHeight: 16, compression: 'lzw', predictor: 'horizontal' })
          .toBuffer(),
      ),
    );
    const rgb = encodeTiff([floatRgb()]);
    const meta = await sharp(rgb).metadata();
    for (const tile of [false, true]) {
      const file = await sharp(rgb)
        .toColourspace(meta.space)
        .tiff({ compression: 'deflate', predictor: 'float', tile, tileWidth: 16, tileHeight: 16 })
        .toBuffer();
      const info = await inspectTiff(write(file));
      expect([info.tiled, info.sampleFormat]).toEqual([tile, 'float']);
      await bothWays(write(file));
    }
  });

  it('a page of several slices, uncompressed and deflate', async () => {
    // One 600 x 1,000 RGB float strip: two slices of 873 rows (512 Ki pixels) of the spilled page.
    const page: TiffPage = {
      width: 600,
      height: 1000,
      samplesPerPixel: 3,
      bitsPerSample: 32,
      sampleFormat: 'float',
      data: Float32Array.from({ length: 600 * 1000 * 3 }, (_, i) => ((i * 7919) % 100_003) - 50_000),
    };
    for (const compression of ['none', 'deflate'] as const)
      await bothWays(write(encodeTiff([page], { compression, rowsPerStrip: 1000 })));
  });
});

const corpus = new URL('../../../fixtures/corpus/', import.meta.url);
const readable = (
  JSON.parse(readFileSync(new URL('expected.json', corpus), 'utf8')) as Array<{
    file: string;
    outcome: string;
  }>
)
  .filter((f) => f.outcome === 'ready')
  .map((f) => f.file);

describe('decodePlane on the corpus', () => {
  it('covers JPEG-in-TIFF', () => {
    expect(readable).toContain('jpeg-in-tiff-rgb.tif');
  });

  it.for(readable)('%s: the plane libvips decodes whole', async (file, { skip }) => {
    const path = new URL(file, corpus).pathname;
    const info = await inspectTiff(path);
    // The judge's whole decode clamps signed grey to 0 (sharp's grey16 cast); decode-plane.test.ts
    // holds signed planes to the samples written instead. Reported as skipped, not passed.
    if (info.sampleFormat === 'int' && info.bitsPerSample !== 32) skip();
    await bothWays(path);
  });
});

describe('decodePlane', () => {
  it('reads a page of 100 MB decoded: the maximum of the RGB samples', async () => {
    const side = { width: 4200, height: 4100 };
    const data = Uint16Array.from(
      { length: side.width * side.height * 3 },
      (_, i) => Math.imul(i, 2654435761) >>> 16,
    );
    const path = write(
      encodeTiff([{ ...side, samplesPerPixel: 3, bitsPerSample: 16, data }], { rowsPerStrip: 64 }),
    );
    const plane = await decodePlane(path, await inspectTiff(path));
    for (const p of [0, 1, side.width * 2000 + 17, side.width * side.height - 1])
      expect(plane.data[p], `pixel ${p}`).toBe(Math.max(data[3 * p], data[3 * p + 1], data[3 * p + 2]));
  });
});
