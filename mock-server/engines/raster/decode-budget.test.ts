import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeTiff, TiffFieldType } from '../../../fixtures/generator/tiff-writer.js';
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

describe('decoding signed samples', () => {
  it('reads a 2,000 x 2,000 signed 16-bit deflate file whose last strip is written to full height', async () => {
    // The construction of the 20,000^2 file, smaller: 2,048 rows of strips of 64, the page
    // declared 2,000 rows high, so the last strip inflates to 64 rows of which the page needs 16.
    const width = 2000;
    const written = 2048;
    const height = 2000;
    const data = Int16Array.from({ length: width * written }, (_, i) => ((i * 7) % 65536) - 32768);
    const path = join(dir, 'signed-padded-last-strip.tif');
    writeFileSync(
      path,
      encodeTiff([{ width, height: written, bitsPerSample: 16, sampleFormat: 'int', data }], {
        compression: 'deflate',
        rowsPerStrip: 64,
        tagOverrides: () => [{ tag: 257, type: TiffFieldType.LONG, values: [height] }],
      }),
    );
    const info = await inspectTiff(path);
    expect(info.height).toBe(height);
    const plane = await decodePlane(path, info);
    expect(plane.data.length).toBe(width * height);
    for (const i of [0, 1, width * 1984, width * height - 1])
      expect(plane.data[i], `sample ${i}`).toBe(data[i] + 32768);
  });

  it('names the real cause of a strip that does not inflate (cannot decode), not the memory limit', async () => {
    const path = join(dir, 'signed-garbage.tif');
    const file = Buffer.from(
      encodeTiff([{ width: 4, height: 2, bitsPerSample: 16, sampleFormat: 'int', data: new Int16Array(8) }], {
        compression: 'deflate',
      }),
    );
    writeFileSync(path, file);
    const info = await inspectTiff(path);
    file.write('not deflate', info.chunkOffsets[0], 'latin1');
    writeFileSync(path, file);
    await expect(decodePlane(path, info)).rejects.toMatchObject({
      kind: 'decode',
      message: expect.not.stringMatching(/memory/),
    });
  });
});
