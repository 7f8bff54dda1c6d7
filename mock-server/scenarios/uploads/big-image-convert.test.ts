/**
 * A file whose decoded page is bigger than a decoder's memory converts within
 * it, and to the right plane. A 6,000 x 6,000 RGB float32 TIFF decodes to 432 MB; the decoder child
 * here is held to 512 MiB (RLIMIT_DATA through prlimit, and a 256 MiB V8 heap), which a decode of
 * the whole page (libvips' 432 MB buffer, then its reductions) does not fit in, and the spill to disk
 * read back a slice at a time (a 72 MB plane, a 36 MB preview, one slice) does.
 *
 * Correctness: the plane must equal, pixel for pixel, what libvips decodes from a small file of
 * the same pattern (its first rows: every row of the pattern holds all its values, so the small
 * file has the big one's min..max and hence its rescale), row y being row 0 shifted
 * (fixtures/generator/streamed-rgb-float.ts).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import {
  patternBase,
  PATTERN_PERIOD,
  writeStreamedRgbFloat,
} from '../../../fixtures/generator/streamed-rgb-float.js';
import { decodedBytes } from '../../engines/raster/decode-budget.js';
import { readPlaneFile } from '../../engines/raster/plane-file.js';
import { inspectTiff } from '../../engines/raster/tiff-inspect.js';
import { decodePlaneWithLibvips } from '../../../test-support/raster/libvips-whole-plane.js';
import { ChildProcessPool } from '../../runtime/decoder-pool/child-process-pool.js';
import type { ConvertJob } from '../../runtime/decoder-pool/decoder-tasks.js';

const MiB = 1024 ** 2;
const SIDE = 6000;
const REFERENCE_ROWS = 16;
const dir = mkdtempSync(join(tmpdir(), 'big-image-'));
const pool = new ChildProcessPool({
  tasksModule: new URL('../../runtime/decoder-pool/decoder-tasks.ts', import.meta.url),
  size: 1,
  memoryCeilingBytes: 512 * MiB,
  timeBudgetMs: 240_000,
});
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder for a conversion's three files, and their paths. */
function outputFolder(name: string) {
  const out = join(dir, name);
  mkdirSync(out);
  const files = {
    preview: join(out, 'preview.png'),
    thumbnail: join(out, 'thumbnail.png'),
    plane: join(out, 'plane.bin'),
  };
  return { out, files };
}

describe('converting a page bigger than the decoder memory', () => {
  it('converts a 432 MB RGB float32 page in a 512 MiB decoder to the plane a small reference decode gives', async () => {
    const big = join(dir, 'big.tif');
    await writeStreamedRgbFloat(big, SIDE, SIDE);
    const info = await inspectTiff(big);
    expect(decodedBytes(info).bytes).toBeGreaterThan(512 * MiB * 0.8);

    const { files } = outputFolder('out');
    const job: ConvertJob = { tiffPath: big, files, limits: {} };
    const converted = await pool.run<{ shape: number[] }>('convert', job);
    expect(converted).toMatchObject({ shape: [SIDE, SIDE, 3] });

    const small = join(dir, 'reference.tif');
    await writeStreamedRgbFloat(small, SIDE, REFERENCE_ROWS);
    const reference = await decodePlaneWithLibvips(small, await inspectTiff(small));
    // Each of the pattern's values, as the reference decoded it.
    const valueOf = new Int32Array(PATTERN_PERIOD).fill(-1);
    for (let x = 0; x < SIDE; x++) valueOf[patternBase(x, 0)] = reference.data[x];
    expect(valueOf.every((v) => v >= 0)).toBe(true);
    expect(Math.min(...valueOf)).toBe(0);
    expect(Math.max(...valueOf)).toBe(65535);

    const plane = await readPlaneFile(files.plane);
    expect([plane.width, plane.height, plane.bitsPerSample]).toEqual([SIDE, SIDE, 16]);
    expect(Array.from(plane.data.subarray(0, SIDE * REFERENCE_ROWS))).toEqual(Array.from(reference.data));
    let wrong = 0;
    let firstWrong = -1;
    for (let y = 0; y < SIDE; y++)
      for (let x = 0; x < SIDE; x++)
        if (plane.data[y * SIDE + x] !== valueOf[patternBase(x, y)]) {
          wrong++;
          if (firstWrong < 0) firstWrong = y * SIDE + x;
        }
    expect({ wrong, firstWrong }).toEqual({ wrong: 0, firstWrong: -1 });

    const preview = await sharp(files.preview).metadata();
    expect([preview.width, preview.height, preview.channels]).toEqual([SIDE, SIDE, 1]);
    const thumbnail = await sharp(files.thumbnail).metadata();
    expect([thumbnail.width, thumbnail.height]).toEqual([256, 256]);
  }, 300_000);

  it('converts a 432 MB JPEG-in-TIFF page (libvips only) in a 512 MiB decoder to the plane libvips decodes whole', async () => {
    // 12,000 x 12,000 RGB, blocks of a random 120 x 120 image: JPEG keeps the file small.
    const side = 12_000;
    const seed = Buffer.from(Array.from({ length: 120 * 120 * 3 }, (_, i) => (i * 2654435761) >>> 24));
    const jpeg = join(dir, 'big-jpeg.tif');
    await sharp(seed, { raw: { width: 120, height: 120, channels: 3 } })
      .resize(side, side, { kernel: 'nearest' })
      .tiff({ compression: 'jpeg', quality: 90 })
      .toFile(jpeg);
    const info = await inspectTiff(jpeg);
    expect([info.compression, decodedBytes(info).bytes]).toEqual([7, side * side * 3]);

    const { out, files } = outputFolder('out-jpeg');
    const converted = await pool.run<{ shape: number[] }>('convert', { tiffPath: jpeg, files, limits: {} });
    expect(converted.shape).toEqual([side, side, 3]);
    expect(readdirSync(out).sort()).toEqual(['plane.bin', 'preview.png', 'thumbnail.png']);

    const plane = await readPlaneFile(files.plane);
    const whole = await decodePlaneWithLibvips(jpeg, info);
    expect([plane.width, plane.height, plane.bitsPerSample]).toEqual([side, side, 8]);
    expect(
      Buffer.from(plane.data.buffer, plane.data.byteOffset, plane.data.byteLength).equals(
        Buffer.from(whole.data.buffer, whole.data.byteOffset, whole.data.byteLength),
      ),
    ).toBe(true);
  }, 300_000);
});
