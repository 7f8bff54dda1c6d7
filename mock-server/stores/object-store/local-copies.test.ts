import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalCopies } from './local-copies.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'local-copies-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("local copies of a remote store's objects", () => {
  it('downloads an object once, answers the same file after, and forgets it on request', async () => {
    const copies = new LocalCopies(path.join(dir, 'cache'));
    let reads = 0;
    const read = async () => {
      reads++;
      return Readable.from([Buffer.from('pixels')]);
    };
    const first = await copies.fileOf('objects/a/original.tif', read);
    const second = await copies.fileOf('objects/a/original.tif', read);
    expect([second, reads, readFileSync(first, 'utf8')]).toEqual([first, 1, 'pixels']);
    await copies.forget('objects/a/original.tif');
    expect(await readdir(path.join(dir, 'cache'))).toEqual([]);
  });

  it('leaves nothing behind when the download fails', async () => {
    const copies = new LocalCopies(path.join(dir, 'failing'));
    const broken = async () =>
      new Readable({
        read() {
          this.destroy(new Error('connection reset'));
        },
      });
    await expect(copies.fileOf('objects/b/original.tif', broken)).rejects.toThrow(/connection reset/);
    expect(await readdir(path.join(dir, 'failing'))).toEqual([]);
  });
});
