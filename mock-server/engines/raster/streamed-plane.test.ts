/**
 * Our streaming reader gives the plane libvips gives when it decodes a page whole, layout by
 * layout: libvips is the outside judge of the reader that decodes every page (decode-plane.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { BAND_MAX, decodePlaneStreamed, streamedPlaneBlocker } from './streamed-plane.js';
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
  expect(streamedPlaneBlocker(info)).toBeUndefined();
  const ours = await decodePlaneStreamed(path, info);
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

describe('decodePlaneStreamed gives the plane libvips gives', () => {
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
      expect([info.predictor, info.tiled, info.sampleFormat]).toEqual([3, tile, 'float']);
      await bothWays(write(file));
    }
  });

  it('a strip of several slices, uncompressed and deflate', async () => {
    // One 600 x 800 RGB float strip is 5.8 MB decoded: two slices of the reader (4 MiB each).
    const page: TiffPage = {
      width: 600,
      height: 800,
      samplesPerPixel: 3,
      bitsPerSample: 32,
      sampleFormat: 'float',
      data: Float32Array.from({ length: 600 * 800 * 3 }, (_, i) => ((i * 7919) % 100_003) - 50_000),
    };
    for (const compression of ['none', 'deflate'] as const)
      await bothWays(write(encodeTiff([page], { compression, rowsPerStrip: 800 })));
  });
});

describe('where libtiff and libvips differ from a naive reading', () => {
  const grey = { width: W, height: H, bitsPerSample: 8, data: ints(N, 0, 256) } satisfies TiffPage;

  it('ignores a predictor on uncompressed and PackBits chunks, as libtiff does', async () => {
    for (const compression of ['none', 'packbits'] as const) {
      const path = write(encodeTiff([grey], { compression }));
      const info = { ...(await inspectTiff(path)), predictor: 2 };
      const ours = await decodePlaneStreamed(path, info);
      const theirs = await decodePlaneWithLibvips(path, await inspectTiff(path));
      expect(Buffer.from(ours.data.buffer, ours.data.byteOffset, ours.data.byteLength), compression).toEqual(
        Buffer.from(theirs.data.buffer, theirs.data.byteOffset, theirs.data.byteLength),
      );
    }
  });

  it('refuses a chunk that decompresses to fewer bytes than its rows, naming it, as libtiff does', async () => {
    for (const compression of ['deflate', 'lzw', 'packbits'] as const) {
      // One strip of H rows, read as if the page (and so the strip) had 3 rows more.
      const path = write(encodeTiff([grey], { compression, rowsPerStrip: 64 }));
      const info = { ...(await inspectTiff(path)), height: H + 3, rowsPerStrip: H + 3 };
      await expect(decodePlaneStreamed(path, info), compression).rejects.toMatchObject({
        kind: 'corrupt',
        message: expect.stringMatching(
          /^corrupt: strip 1 of 1 does not decompress to its \d+ bytes \(it ends 111 bytes short\)/,
        ),
      });
    }
  });
});

describe('streamedPlaneBlocker', () => {
  it('leaves to libvips what the reader does not know, and 32-bit separate planes in bands too big to hold', async () => {
    const path = write(
      encodeTiff([floatRgb()], {
        planarConfig: 'separate',
      }),
    );
    const info = await inspectTiff(path);
    expect(streamedPlaneBlocker({ ...info, compression: 7 })).toBe('compression 7');
    expect(streamedPlaneBlocker({ ...info, compression: 8, predictor: 2 })).toBe('predictor 2');
    // One strip of 4,096 x 2,100 per plane: a band of 68.8 MB of maxima.
    const oneStrip = { ...info, width: 4096, height: 2100, rowsPerStrip: 2100 };
    expect(4096 * 2100 * 8).toBeGreaterThan(BAND_MAX);
    expect(streamedPlaneBlocker(oneStrip)).toMatch(/^separate 32-bit sample planes in strips of 2100 rows/);
    expect(streamedPlaneBlocker({ ...oneStrip, rowsPerStrip: 64 })).toBeUndefined();
    // 16-bit separate planes need no band: the plane is their accumulator.
    expect(streamedPlaneBlocker({ ...oneStrip, bitsPerSample: 16, sampleFormat: 'uint' })).toBeUndefined();
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
