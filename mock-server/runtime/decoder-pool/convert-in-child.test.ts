import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spillScratchPath } from '../../engines/raster/spill-scratch.js';
import { convertInChild } from './convert-in-child.js';

const dir = mkdtempSync(join(tmpdir(), 'convert-in-child-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const files = { plane: join(dir, 'plane.bin'), preview: join(dir, 'p.png'), thumbnail: join(dir, 't.png') };

describe('convertInChild', () => {
  it('removes the spill file a decoder killed mid-spill left, and still fails with its error', async () => {
    const killed = {
      run<T>(): Promise<T> {
        writeFileSync(spillScratchPath(files.plane), 'half a page'); // what the child had written
        return Promise.reject(new Error('the decoder process stopped (SIGKILL)'));
      },
    };
    await expect(convertInChild(killed, {})('in.tif', files)).rejects.toThrow('SIGKILL');
    expect(existsSync(spillScratchPath(files.plane))).toBe(false);
  });

  it("answers the child's result, with the job it was given", async () => {
    let job: unknown;
    const fine = {
      run<T>(task: string, payload: unknown): Promise<T> {
        job = { task, payload };
        return Promise.resolve({ shape: [1, 1] } as T);
      },
    };
    expect(await convertInChild(fine, { maxPixels: 9 })('in.tif', files)).toEqual({ shape: [1, 1] });
    expect(job).toEqual({
      task: 'convert',
      payload: { tiffPath: 'in.tif', files, limits: { maxPixels: 9 } },
    });
  });
});
