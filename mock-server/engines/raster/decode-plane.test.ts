import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { convertImage } from './convert-image.js';
import { decodePlane } from './decode-plane.js';
import { readPlaneFile } from './plane-file.js';
import { TiffError } from './tiff-error.js';
import { inspectTiff } from './tiff-inspect.js';

const dir = mkdtempSync(join(tmpdir(), 'decode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let k = 0;
const write = (bytes: Uint8Array) => {
  const p = join(dir, `d${k++}.tif`);
  writeFileSync(p, bytes);
  return p;
};
const decode = async (pages: TiffPage[], o: TiffEncodeOptions = {}) => {
  const p = write(encodeTiff(pages, o));
  return decodePlane(p, await inspectTiff(p));
};
const W = 33;
const H = 21;
const N = W * H;
const rng = createRng(99);
const u16 = Uint16Array.from({ length: N }, () => rng.int(0, 65536));
const u8 = Uint8Array.from({ length: N }, () => rng.int(0, 256));

describe('decodePlane', () => {
  it.each(['none', 'lzw', 'deflate', 'packbits'] as const)(
    'keeps 8-bit and raw 16-bit values (%s)',
    async (compression) => {
      const p8 = await decode([{ width: W, height: H, bitsPerSample: 8, data: u8 }], { compression });
      expect(p8.bitsPerSample).toBe(8);
      expect(p8.data).toBeInstanceOf(Uint8Array);
      expect(Array.from(p8.data)).toEqual(Array.from(u8));
      const p16 = await decode([{ width: W, height: H, bitsPerSample: 16, data: u16 }], {
        compression,
        littleEndian: false,
      });
      expect(p16.bitsPerSample).toBe(16);
      expect(p16.data).toBeInstanceOf(Uint16Array);
      expect(Array.from(p16.data)).toEqual(Array.from(u16));
    },
  );

  it('takes the first page of a multi-page file', async () => {
    const other = new Uint16Array(N).fill(7);
    const p = await decode(
      [
        { width: W, height: H, bitsPerSample: 16, data: u16 },
        { width: W, height: H, bitsPerSample: 16, data: other },
      ],
      { compression: 'lzw' },
    );
    expect(Array.from(p.data)).toEqual(Array.from(u16));
  });

  it.each(['contig', 'separate'] as const)(
    'reduces RGB to the maximum of the channels (%s)',
    async (planarConfig) => {
      const rgb = Uint16Array.from({ length: N * 3 }, () => rng.int(0, 65536));
      const p = await decode([{ width: W, height: H, samplesPerPixel: 3, bitsPerSample: 16, data: rgb }], {
        planarConfig,
      });
      expect(p.bitsPerSample).toBe(16);
      const want = Array.from({ length: N }, (_, i) => Math.max(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]));
      expect(Array.from(p.data)).toEqual(want);
    },
  );

  it('ignores alpha when reducing RGBA and grey + alpha', async () => {
    const rgba = Uint8Array.from({ length: N * 4 }, (_, i) => (i % 4 === 3 ? 255 : rng.int(0, 200)));
    const p = await decode([{ width: W, height: H, samplesPerPixel: 4, bitsPerSample: 8, data: rgba }]);
    expect(Array.from(p.data)).toEqual(
      Array.from({ length: N }, (_, i) => Math.max(rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2])),
    );
    const ga = Uint16Array.from({ length: N * 2 }, (_, i) => (i % 2 ? 65535 : u16[i >> 1]));
    const q = await decode([{ width: W, height: H, samplesPerPixel: 2, bitsPerSample: 16, data: ga }]);
    expect(Array.from(q.data)).toEqual(Array.from(u16));
  });

  it('rescales 32-bit float min..max to 0..65535 in a 16-bit plane', async () => {
    const f = Float32Array.from({ length: N }, (_, i) => (i === 5 ? NaN : -2 + (4 * i) / (N - 1)));
    const p = await decode([{ width: W, height: H, bitsPerSample: 32, sampleFormat: 'float', data: f }]);
    expect(p.bitsPerSample).toBe(16);
    expect(p.data[0]).toBe(0);
    expect(p.data[N - 1]).toBe(65535);
    expect(p.data[5]).toBe(0);
    expect(p.data[Math.floor(N / 2)]).toBeCloseTo(65535 * (Math.floor(N / 2) / (N - 1)), -1);
  });

  it.each(['none', 'lzw', 'packbits', 'deflate'] as const)(
    'shifts signed 16-bit by +32768 (%s)',
    async (compression) => {
      const s = Int16Array.from(u16, (v) => v - 32768);
      const p = await decode([{ width: W, height: H, bitsPerSample: 16, sampleFormat: 'int', data: s }], {
        compression,
        rowsPerStrip: 4,
      });
      expect(p.bitsPerSample).toBe(16);
      expect(Array.from(p.data)).toEqual(Array.from(u16));
    },
  );

  it('shifts signed 8-bit by +128 and takes the max of signed RGB planes', async () => {
    const s = Int8Array.from(u8, (v) => v - 128);
    const p = await decode([{ width: W, height: H, bitsPerSample: 8, sampleFormat: 'int', data: s }]);
    expect(Array.from(p.data)).toEqual(Array.from(u8));
    const rgb = Int16Array.from({ length: N * 3 }, () => rng.int(-32768, 32768));
    const q = await decode(
      [{ width: W, height: H, samplesPerPixel: 3, bitsPerSample: 16, sampleFormat: 'int', data: rgb }],
      { planarConfig: 'separate', compression: 'lzw' },
    );
    expect(Array.from(q.data)).toEqual(
      Array.from({ length: N }, (_, i) => Math.max(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]) + 32768),
    );
  });

  it('decodes a tiled 16-bit TIFF written by libvips', async () => {
    const src = encodeTiff([{ width: W, height: H, bitsPerSample: 16, data: u16 }]);
    const tiled = await sharp(src)
      .toColourspace('grey16')
      .tiff({ tile: true, tileWidth: 16, tileHeight: 16, compression: 'lzw', predictor: 'horizontal' })
      .toBuffer();
    const p = write(tiled);
    const info = await inspectTiff(p);
    expect(info.tiled).toBe(true);
    expect(Array.from((await decodePlane(p, info)).data)).toEqual(Array.from(u16));
  });

  it("refuses corrupt strip data with a TiffError in libtiff's words", async () => {
    const buf = Buffer.from(
      encodeTiff([{ width: W, height: H, bitsPerSample: 16, data: u16 }], {
        compression: 'lzw',
        rowsPerStrip: H,
      }),
    );
    const p0 = write(buf);
    const info = await inspectTiff(p0);
    buf.fill(0xff, info.chunkOffsets[0], info.chunkOffsets[0] + info.chunkByteCounts[0]);
    const p = write(buf);
    const e = await decodePlane(p, info).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TiffError);
    expect(e).toMatchObject({
      kind: 'decode',
      message: expect.stringMatching(/^cannot decode: tiff2vips: /),
    });
  });
});

describe('convertImage', () => {
  it('returns shape and sizes, writes the previews and the decoded plane', async () => {
    const p = write(
      encodeTiff([
        { width: W, height: H, bitsPerSample: 16, data: u16 },
        { width: W, height: H, bitsPerSample: 16, data: u16 },
      ]),
    );
    const files = filesIn(join(dir, 'conv'));
    const r = await convertImage(p, files);
    expect(r).toMatchObject({ shape: [2, H, W], width: W, height: H });
    const prev = await sharp(r.previewPath).metadata();
    expect([prev.width, prev.height, prev.channels, prev.format]).toEqual([W, H, 1, 'png']);
    const th = await sharp(r.thumbnailPath).metadata();
    // Smaller than a thumbnail's bound: kept at its size, never enlarged.
    expect([th.width, th.height]).toEqual([W, H]);
    const plane = await readPlaneFile(files.plane);
    expect([plane.width, plane.height, plane.bitsPerSample]).toEqual([W, H, 16]);
    const samples = Buffer.from(plane.data.buffer, plane.data.byteOffset, plane.data.byteLength);
    expect(samples.equals(Buffer.from(u16.buffer))).toBe(true);
  });

  it('passes limits through', async () => {
    const p = write(encodeTiff([{ width: W, height: H, bitsPerSample: 8, data: u8 }]));
    await expect(convertImage(p, filesIn(join(dir, 'lim')), { maxPixels: 100 })).rejects.toThrow(
      /too large: 33 x 21 pixels declared, above this server's limit of 0/,
    );
  });
});

function filesIn(folder: string) {
  mkdirSync(folder, { recursive: true });
  return {
    preview: join(folder, 'preview.png'),
    thumbnail: join(folder, 'thumbnail.png'),
    plane: join(folder, 'plane.bin'),
  };
}
