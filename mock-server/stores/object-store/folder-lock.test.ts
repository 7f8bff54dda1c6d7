/**
 * The upload lock shared by processes on one folder (folder-lock.ts): held, it keeps others out
 * for as long as its holder works; a dead holder's lock is taken over, by one waiter at a time.
 * The second process of these tests is the forked one of shared-folder.test.ts.
 */
import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FolderLocks } from './folder-lock.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'folder-lock-'));
  file = path.join(dir, 'lock');
});
afterEach(() => fsp.rm(dir, { recursive: true, force: true }));

const gone = () => new Error('gone');

/** A lock file as another host's process leaves it, last touched `ageMs` ago. */
async function foreignLock(ageMs: number): Promise<void> {
  await fsp.writeFile(file, JSON.stringify({ host: 'another-host', pid: 1, process: 'p', holding: 'h' }));
  const when = new Date(Date.now() - ageMs);
  await fsp.utimes(file, when, when);
}

it("waits for another host's live lock, and runs once it is released", async () => {
  await foreignLock(0);
  const order: string[] = [];
  const mine = new FolderLocks({ staleMs: 3_600_000 }).run(
    'k',
    file,
    async () => void order.push('mine'),
    gone,
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  order.push('released');
  await fsp.rm(file);
  await mine;
  expect(order).toEqual(['released', 'mine']);
  await expect(fsp.access(file)).rejects.toMatchObject({ code: 'ENOENT' });
});

it("takes over another host's lock not touched for staleMs, one waiter at a time", async () => {
  for (let round = 0; round < 10; round++) {
    await foreignLock(60_000);
    let inside = 0;
    let most = 0;
    const task = async () => {
      most = Math.max(most, ++inside);
      await new Promise((resolve) => setImmediate(resolve));
      inside--;
    };
    // Separate lock objects, as separate processes have: only the file keeps them apart.
    await Promise.all(
      Array.from({ length: 8 }, () => new FolderLocks({ staleMs: 1_000 }).run('k', file, task, gone)),
    );
    expect(most, `round ${round}`).toBe(1);
    expect(await fsp.readdir(dir)).toEqual([]);
  }
});

it('answers what gone() makes when the folder holding the lock is gone (the upload ended)', async () => {
  await expect(
    new FolderLocks().run('k', path.join(dir, 'ended-upload', 'lock'), async () => 'ran', gone),
  ).rejects.toThrow('gone');
});

it('runs tasks of one process on one key one after another, and releases after a failing task', async () => {
  const locks = new FolderLocks();
  const order: string[] = [];
  const first = locks.run(
    'k',
    file,
    async () => {
      order.push('first');
      throw new Error('failed');
    },
    gone,
  );
  const second = locks.run('k', file, async () => void order.push('second'), gone);
  await expect(first).rejects.toThrow('failed');
  await second;
  expect(order).toEqual(['first', 'second']);
  expect(await fsp.readdir(dir)).toEqual([]);
});

it('takes over, at once, a lock file this process left behind but no longer holds', async () => {
  const locks = new FolderLocks({ staleMs: 3_600_000 });
  // A holding of this process, as its file reads while held, copied back after the release.
  let leftBehind = '';
  await locks.run('k', file, async () => void (leftBehind = await fsp.readFile(file, 'utf8')), gone);
  await fsp.writeFile(file, leftBehind);
  expect(await locks.run('k', file, async () => 'ran', gone)).toBe('ran');
});
