import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Plane } from './plane.js';
import { PlaneFileError, readPlaneFile, writePlaneFile } from './plane-file.js';

const dir = mkdtempSync(join(tmpdir(), 'plane-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const planes: Plane[] = [
  { width: 3, height: 2, bitsPerSample: 8, data: Uint8Array.from([0, 1, 2, 253, 254, 255]) },
  { width: 2, height: 2, bitsPerSample: 16, data: Uint16Array.from([0, 1, 65534, 65535]) },
];

describe('a decoded plane on disk', () => {
  it.each(planes.map((plane) => [plane.bitsPerSample, plane] as const))(
    'reads back a %i-bit plane sample for sample',
    async (_bits, plane) => {
      const file = join(dir, `plane-${plane.bitsPerSample}.bin`);
      await writePlaneFile(file, plane);
      const read = await readPlaneFile(file);
      expect([read.width, read.height, read.bitsPerSample]).toEqual([
        plane.width,
        plane.height,
        plane.bitsPerSample,
      ]);
      expect(read.data.constructor).toBe(plane.data.constructor);
      expect([...read.data]).toEqual([...plane.data]);
    },
  );

  it('refuses a file that is not a plane, or is cut short, instead of reading garbage', async () => {
    const file = join(dir, 'cut.bin');
    await writePlaneFile(file, planes[1]);
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 1));
    await expect(readPlaneFile(file)).rejects.toBeInstanceOf(PlaneFileError);
    writeFileSync(file, 'not a plane at all, just some text');
    await expect(readPlaneFile(file)).rejects.toBeInstanceOf(PlaneFileError);
  });
});
