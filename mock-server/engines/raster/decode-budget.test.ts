import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeTiff } from '../../../fixtures/generator/tiff-writer.js';
import { HOSTILE_DIR } from '../../../fixtures/hostile/build-hostile.js';
import { decodedBytes } from './decode-budget.js';
import { decodePlane } from './decode-plane.js';
import { inspectTiff } from './tiff-inspect.js';

const dir = mkdtempSync(join(tmpdir(), 'budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rgb16 = join(dir, 'rgb16.tif');
writeFileSync(
  rgb16,
  encodeTiff(
    [1, 2].map(() => ({
      width: 30,
      height: 20,
      samplesPerPixel: 3 as const,
      bitsPerSample: 16 as const,
      data: new Uint16Array(30 * 20 * 3),
    })),
  ),
);

describe('the decoded-bytes budget', () => {
  it('counts width x height x samples x bytes per sample x pages', async () => {
    const info = await inspectTiff(rgb16);
    expect(decodedBytes(info).bytes).toBe(30 * 20 * 3 * 2 * 2);
  });

  it('lets a file at the budget through and refuses one byte less, naming the figure and the limit', async () => {
    await expect(inspectTiff(rgb16, { maxDecodedBytes: 7200 })).resolves.toMatchObject({ pages: 2 });
    await expect(inspectTiff(rgb16, { maxDecodedBytes: 7199 })).rejects.toThrow(
      "too large to decode: 30 x 20 pixels x 3 samples x 2 bytes x 2 pages = 7,200 bytes (0.00 GiB) decoded, above this server's limit of 7,199 bytes",
    );
  });

  it('counts whole tiles, not the image they hold', () => {
    const size = decodedBytes({
      width: 1,
      height: 1,
      samplesPerPixel: 2,
      bitsPerSample: 8,
      pages: 1,
      tiled: true,
      tileWidth: 65_536,
      tileHeight: 65_536,
    });
    expect(size.bytes).toBe(65_536 * 65_536 * 2);
  });

  it('refuses the 4.8 GB deflate bomb of the hostile corpus from its header (34 KB read at most)', async () => {
    let read = 0;
    const path = join(HOSTILE_DIR, 'deflate-bomb-rgb-float-4.8GB.tif');
    await expect(inspectTiff(path, {}, { onRead: (_p, n) => (read += n) })).rejects.toThrow(
      /too large to decode: 20,000 x 20,000 pixels x 3 samples x 4 bytes x 1 page = 4,800,000,000 bytes/,
    );
    expect(read).toBeLessThan(40_000);
  });
});

describe('the strip reader (signed samples)', () => {
  it('refuses a deflate strip that inflates past its own size instead of inflating it all', async () => {
    const path = join(dir, 'signed-overlong.tif');
    const small = encodeTiff(
      [{ width: 4, height: 2, bitsPerSample: 16, sampleFormat: 'int', data: new Int16Array(8) }],
      { compression: 'deflate' },
    );
    writeFileSync(path, small);
    const info = await inspectTiff(path);
    // the one 16-byte strip now points at a stream of 1 MiB appended to the file
    const big = deflateSync(Buffer.alloc(1024 * 1024));
    writeFileSync(path, Buffer.concat([small, big]));
    const overlong = { ...info, chunkOffsets: [small.length], chunkByteCounts: [big.length] };
    await expect(decodePlane(path, overlong)).rejects.toThrow(
      /corrupt: strip 1 of 1 does not decompress to its 16 bytes/,
    );
  });
});
