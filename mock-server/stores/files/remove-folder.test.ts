import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { removeFolder } from './remove-folder.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'remove-folder-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** Writes files into `folder` one after another, as a conversion does, until the folder is gone. */
async function writeUntilGone(folder: string): Promise<{ written: number; stoppedBy: string }> {
  for (let written = 0; ; written++) {
    try {
      await writeFile(path.join(folder, `file-${written}.bin`), 'x');
    } catch (error) {
      return { written, stoppedBy: (error as NodeJS.ErrnoException).code ?? String(error) };
    }
  }
}

it('removes a folder another writer keeps writing into, and the writer stops on ENOENT', async () => {
  for (let round = 0; round < 20; round++) {
    const folder = path.join(root, `derived-${round}`);
    await mkdir(folder);
    const writer = writeUntilGone(folder);
    // Let the writer get going, so the removal lists a folder that grows under it.
    while ((await readdir(folder)).length < 20) await new Promise((resolve) => setImmediate(resolve));
    expect(await removeFolder(folder)).toBe(true);
    expect((await writer).stoppedBy).toBe('ENOENT');
    expect(await readdir(root)).toEqual([]);
  }
});

it('answers true for a folder that is not there, and throws on other failures', async () => {
  expect(await removeFolder(path.join(root, 'absent'))).toBe(true);
  await expect(removeFolder('\0bad')).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
});
