import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeTiff, type TiffPage } from '../../../fixtures/generator/tiff-writer.js';
import { TiffError } from './tiff-error.js';
import { inspectTiff } from './tiff-inspect.js';

const dir = mkdtempSync(join(tmpdir(), 'inspect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let k = 0;
const file = (bytes: Uint8Array) => {
  const p = join(dir, `f${k++}.tif`);
  writeFileSync(p, bytes);
  return p;
};
const page = (width: number, height: number, extra: Partial<TiffPage> = {}): TiffPage => ({
  width,
  height,
  bitsPerSample: 8,
  data: new Uint8Array(width * height * (extra.samplesPerPixel ?? 1)),
  ...extra,
});
const failure = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(TiffError);
  return e as TiffError;
};

describe('inspectTiff', () => {
  it.each([
    ['classic LE', { bigTiff: false, littleEndian: true }],
    ['classic BE', { bigTiff: false, littleEndian: false }],
    ['BigTIFF LE', { bigTiff: true, littleEndian: true }],
    ['BigTIFF BE', { bigTiff: true, littleEndian: false }],
  ] as const)('reads %s headers and tags', async (_n, o) => {
    const info = await inspectTiff(
      file(
        encodeTiff([page(40, 30, { bitsPerSample: 16, data: new Uint16Array(1200) })], {
          ...o,
          compression: 'lzw',
          rowsPerStrip: 7,
        }),
      ),
    );
    expect(info).toMatchObject({
      bigTiff: o.bigTiff,
      littleEndian: o.littleEndian,
      pages: 1,
      width: 40,
      height: 30,
      samplesPerPixel: 1,
      bitsPerSample: 16,
      sampleFormat: 'uint',
      compression: 5,
      tiled: false,
      shape: [30, 40],
    });
    expect(info.chunkOffsets).toHaveLength(5);
  });

  it('follows the shape convention: [pages?, height, width, channels?]', async () => {
    const rgb = page(8, 6, { samplesPerPixel: 3 });
    expect((await inspectTiff(file(encodeTiff([page(8, 6), page(8, 6), page(8, 6)])))).shape).toEqual([
      3, 6, 8,
    ]);
    expect((await inspectTiff(file(encodeTiff([rgb])))).shape).toEqual([6, 8, 3]);
    expect((await inspectTiff(file(encodeTiff([rgb, rgb])))).shape).toEqual([2, 6, 8, 3]);
    const f = await inspectTiff(
      file(
        encodeTiff([page(8, 6, { bitsPerSample: 32, sampleFormat: 'float', data: new Float32Array(48) })]),
      ),
    );
    expect(f).toMatchObject({ sampleFormat: 'float', bitsPerSample: 32, shape: [6, 8] });
  });

  it('does not count reduced-resolution pages (thumbnails) or pages of another size', async () => {
    const buf = encodeTiff([page(16, 16), page(8, 8), page(16, 16), page(16, 16)], {
      tagOverrides: (i) => (i === 2 ? [{ tag: 254, type: 4, values: [1] }] : []),
    });
    expect((await inspectTiff(file(buf))).pages).toBe(2);
  });

  it('applies a configurable pixel limit', async () => {
    const p = file(encodeTiff([page(100, 100)]));
    expect((await inspectTiff(p, { maxPixels: 10_000 })).width).toBe(100);
    const e = await failure(inspectTiff(p, { maxPixels: 9_999 }));
    expect(e.kind).toBe('too-large');
    expect(e.message).toContain('100 x 100 pixels declared');
  });

  it('reports a strip past the end with numbers a person can read', async () => {
    const buf = encodeTiff([page(256, 256)], { rowsPerStrip: 64 });
    const e = await failure(inspectTiff(file(buf.subarray(0, buf.length - 10))));
    expect(e.kind).toBe('truncated');
    expect(e.message).toMatch(
      /^truncated: strip 4 of 4 ends past the end of the file \(needs 16,384 bytes at offset [\d,]+; the file has [\d,]+\)/,
    );
  });

  it('reports strips of a later page past the end', async () => {
    const buf = encodeTiff([page(32, 32), page(32, 32)], { rowsPerStrip: 32 });
    const e = await failure(inspectTiff(file(buf.subarray(0, buf.length - 1))));
    expect(e.message).toContain('strip 1 of 1 on page 2');
  });

  it('rejects a directory past the end and a header without one', async () => {
    const buf = Buffer.from(encodeTiff([page(4, 4)]));
    buf.writeUInt32LE(1_000_000, 4);
    expect((await failure(inspectTiff(file(buf)))).message).toContain('past the end of the file');
    buf.writeUInt32LE(0, 4);
    expect((await failure(inspectTiff(file(buf)))).kind).toBe('corrupt');
    expect((await failure(inspectTiff(file(Buffer.from('II*\0'))))).kind).toBe('truncated');
  });

  it('names GIF, BMP, PDF and ZIP files', async () => {
    for (const [bytes, name] of [
      ['GIF89a....', 'GIF'],
      ['BM........', 'BMP'],
      ['%PDF-1.7..', 'PDF'],
      ['PK\x03\x04......', 'ZIP'],
    ] as const) {
      const e = await failure(inspectTiff(file(Buffer.from(bytes, 'latin1'))));
      expect(e.kind).toBe('not-tiff');
      expect(e.message).toContain(`(${name})`);
    }
  });

  it('rejects unsupported sample types', async () => {
    const f64 = encodeTiff([page(4, 4)], { tagOverrides: () => [{ tag: 339, type: 3, values: [3] }] });
    expect((await failure(inspectTiff(file(f64)))).message).toBe(
      'unsupported: 8-bit floating-point samples; this server reads 8-, 16- and 32-bit integer and 32-bit float images',
    );
    const mixed = encodeTiff([page(4, 4, { samplesPerPixel: 3, data: new Uint8Array(48) })], {
      tagOverrides: () => [{ tag: 258, type: 3, values: [8, 8, 16] }],
    });
    expect((await failure(inspectTiff(file(mixed)))).message).toContain('different bit depths');
  });

  it('reads only small ranges of a 3 GB sparse file', async () => {
    // A valid header and IFD whose single strip sits at the very end of a 3 GB file.
    const size = 3 * 1024 ** 3;
    const w = 1024;
    const h = 1024;
    const stripBytes = w * h;
    const head = encodeTiff([page(4, 4)], {
      bigTiff: true,
      tagOverrides: () => [
        { tag: 256, type: 4, values: [w] },
        { tag: 257, type: 4, values: [h] },
        { tag: 278, type: 4, values: [h] },
        { tag: 273, type: 16, values: [size - stripBytes] },
        { tag: 279, type: 16, values: [stripBytes] },
      ],
    });
    const p = join(dir, 'sparse.tif');
    const fd = openSync(p, 'w');
    try {
      writeSync(fd, head, 0, head.length, 0);
      writeSync(fd, Buffer.from([0]), 0, 1, size - 1); // extends the file sparsely
    } finally {
      closeSync(fd);
    }
    let bytesRead = 0;
    let largest = 0;
    const info = await inspectTiff(
      p,
      {},
      { onRead: (_pos, len) => ((bytesRead += len), (largest = Math.max(largest, len))) },
    );
    rmSync(p);
    expect(info).toMatchObject({ bigTiff: true, width: w, height: h, fileSize: size, shape: [h, w] });
    expect(bytesRead).toBeLessThan(4096);
    expect(largest).toBeLessThan(1024);
  });

  it('refuses directories that all point at one strip table, having read about the file once', async () => {
    // Pages of 1 x 20,000 pixels, one row a strip, every page's StripOffsets and StripByteCounts
    // the same two arrays: each page makes the walk read and check 160 KB again.
    const pages = 200;
    const rows = 20_000;
    const offsets = 16;
    const counts = offsets + 4 * rows;
    const firstIfd = counts + 4 * rows;
    const tags: Array<[number, number, number, number]> = [
      [256, 4, 1, 1],
      [257, 4, 1, rows],
      [258, 3, 1, 8],
      [259, 3, 1, 1],
      [262, 3, 1, 1],
      [273, 4, rows, offsets],
      [278, 4, 1, 1],
      [279, 4, rows, counts],
    ];
    const ifdSize = 2 + 12 * tags.length + 4;
    const bytes = Buffer.alloc(firstIfd + pages * ifdSize);
    bytes.write('II', 0, 'latin1');
    bytes.writeUInt16LE(42, 2);
    bytes.writeUInt32LE(firstIfd, 4);
    for (let i = 0; i < rows; i++) {
      bytes.writeUInt32LE(8, offsets + 4 * i); // every strip is the byte at offset 8
      bytes.writeUInt32LE(1, counts + 4 * i);
    }
    for (let p = 0; p < pages; p++) {
      let at = firstIfd + p * ifdSize;
      at = bytes.writeUInt16LE(tags.length, at);
      for (const [tag, type, count, value] of tags) {
        at = bytes.writeUInt16LE(tag, at);
        at = bytes.writeUInt16LE(type, at);
        at = bytes.writeUInt32LE(count, at);
        at = bytes.writeUInt32LE(value, at);
      }
      bytes.writeUInt32LE(p < pages - 1 ? at + 4 : 0, at);
    }
    let bytesRead = 0;
    const e = await failure(inspectTiff(file(bytes), {}, { onRead: (_p, l) => (bytesRead += l) }));
    expect(e.kind).toBe('corrupt');
    expect(e.message).toContain('point at the same bytes over and over');
    expect(bytesRead).toBeLessThanOrEqual(2 * bytes.length + 64 * 1024);
  });

  it('detects a strip offset beyond a large file without reading it', async () => {
    const buf = encodeTiff([page(4, 4)], {
      tagOverrides: () => [{ tag: 273, type: 4, values: [4_000_000_000] }],
    });
    let bytesRead = 0;
    const e = await failure(inspectTiff(file(buf), {}, { onRead: (_p, l) => (bytesRead += l) }));
    expect(e.message).toContain('offset 4,000,000,000');
    expect(bytesRead).toBeLessThan(1024);
  });
});
