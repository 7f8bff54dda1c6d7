import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { md5OfRange, startMd5 } from './md5-thread.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'md5-range-'));
const FILE = path.join(dir, 'bytes');
const BYTES = randomBytes(3 * 1024 * 1024 + 17); // more than one of the thread's reads, not a whole number of them
writeFileSync(FILE, BYTES);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

describe('md5OfRange', () => {
  it('hashes a range of a file by name, and the whole of it', async () => {
    expect(await md5OfRange({ file: FILE, start: 1000, size: 2_500_000 })).toBe(
      md5(BYTES.subarray(1000, 2_501_000)),
    );
    expect(await md5OfRange({ file: FILE, start: 0, size: BYTES.length })).toBe(md5(BYTES));
    expect(await md5OfRange({ file: FILE, start: 5, size: 0 })).toBe(md5(Buffer.alloc(0)));
  });

  it('hashes through a descriptor held open, after the file was renamed away', async () => {
    const handle = await open(FILE, 'r');
    const moved = path.join(dir, 'moved');
    await rename(FILE, moved);
    try {
      expect(await md5OfRange({ fd: handle.fd, start: 7, size: 1_048_576 })).toBe(
        md5(BYTES.subarray(7, 7 + 1_048_576)),
      );
    } finally {
      await handle.close();
      await rename(moved, FILE);
    }
  });

  it('answers many callers at once, each its own digest', async () => {
    const ranges = Array.from({ length: 12 }, (_, i) => ({ start: i * 1000, size: 200_000 + i }));
    const digests = await Promise.all(ranges.map((r) => md5OfRange({ file: FILE, ...r })));
    expect(digests).toEqual(ranges.map((r) => md5(BYTES.subarray(r.start, r.start + r.size))));
  });

  it('refuses a range past the end of the file, and a missing file with its errno code', async () => {
    await expect(md5OfRange({ file: FILE, start: BYTES.length - 10, size: 20 })).rejects.toThrow(
      /ends 10 bytes before the range does/,
    );
    await expect(md5OfRange({ file: path.join(dir, 'absent'), start: 0, size: 1 })).rejects.toMatchObject({
      code: 'ENOENT',
    });
    // The thread lives on after a refusal.
    expect(await md5OfRange({ file: FILE, start: 0, size: 10 })).toBe(md5(BYTES.subarray(0, 10)));
  });

  it('holds a process that waits on nothing else until the digest comes, then lets it exit', () => {
    const module = new URL('./md5-thread.ts', import.meta.url).href;
    const script = `import { md5OfRange } from ${JSON.stringify(module)};
      console.log(await md5OfRange({ file: ${JSON.stringify(FILE)}, start: 0, size: 1000 }));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.signal, 'ended by itself, not by the timeout').toBeNull();
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(md5(BYTES.subarray(0, 1000)));
    expect(run.status).toBe(0);
  });

  it('hashes bytes as they are written, told how far they are, and answers the whole on finish', async () => {
    const file = path.join(dir, 'growing');
    const handle = await open(file, 'w+');
    try {
      const job = startMd5({ fd: handle.fd }, 100);
      let written = 0;
      for (let at = 0; at < BYTES.length; at += 300_001) {
        const piece = BYTES.subarray(at, at + 300_001);
        await handle.write(piece, 0, piece.length, 100 + at);
        written += piece.length;
        job.advance(written);
      }
      expect(await job.finish(BYTES.length)).toBe(md5(BYTES));
    } finally {
      await handle.close();
      await rm(file);
    }
  });

  it('forgets a dropped job, and serves the next', async () => {
    const handle = await open(FILE, 'r');
    try {
      const job = startMd5({ fd: handle.fd }, 0);
      job.advance(2_000_000);
      job.drop();
      job.drop();
      expect(await md5OfRange({ fd: handle.fd, start: 3, size: 99 })).toBe(md5(BYTES.subarray(3, 102)));
    } finally {
      await handle.close();
    }
  });
});
