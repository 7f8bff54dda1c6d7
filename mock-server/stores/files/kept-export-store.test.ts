import { mkdir, mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataLayout, type DataLayout } from '../data-layout.js';
import { KeptExportFileStore } from './kept-export-store.js';

let layout: DataLayout;
beforeEach(async () => {
  layout = dataLayout(await mkdtemp(path.join(os.tmpdir(), 'kept-exports-')));
  for (const folder of layout.folders) await mkdir(folder, { recursive: true });
  await mkdir(layout.segmentationOf('seg').folder);
});
afterEach(() => rm(layout.root, { recursive: true, force: true }));

const KEY = (n: number) => `key${n}`.padEnd(32, 'x');

describe('kept exports on the data folder', () => {
  it('keeps a render whole and finds it by its key, with a strong ETag from its bytes', async () => {
    const store = new KeptExportFileStore(layout, 4);
    const kept = await store.keep('seg', KEY(1), ['a,b\n', Buffer.from('1,2\n')]);
    expect(kept?.size).toBe(8);
    const found = await store.find('seg', KEY(1));
    expect(found?.etag).toBe(kept?.etag);
    expect(found?.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(await text((await found!.open())!)).toBe('a,b\n1,2\n');
    expect(await store.find('seg', KEY(2))).toBeUndefined();
    const other = await store.keep('seg', KEY(2), ['a,b\n1,3\n']);
    expect(other?.etag).not.toBe(kept?.etag);
  });

  it('leaves nothing to serve, and no temporary file, when the render fails half way', async () => {
    const store = new KeptExportFileStore(layout, 4);
    async function* failing() {
      yield 'half a file';
      throw new Error('render failed');
    }
    await expect(store.keep('seg', KEY(1), failing())).rejects.toThrow('render failed');
    expect(await store.find('seg', KEY(1))).toBeUndefined();
    expect(await readdir(layout.incoming)).toEqual([]);
  });

  it('does not bring back the folder of a segmentation deleted while its export was rendered', async () => {
    const store = new KeptExportFileStore(layout, 4);
    await rm(layout.segmentationOf('seg').folder, { recursive: true });
    expect(await store.keep('seg', KEY(1), ['bytes'])).toBeUndefined();
    expect(await readdir(layout.segmentations)).toEqual([]);
    expect(await readdir(layout.incoming)).toEqual([]);
  });

  it('keeps at most the configured number of variants, the oldest rendered going first', async () => {
    const store = new KeptExportFileStore(layout, 2);
    for (let n = 1; n <= 3; n++) {
      await store.keep('seg', KEY(n), [`variant ${n}`]);
      // mtimes of files written in the same millisecond would tie; each render is made older than the next.
      for (const name of await readdir(layout.keptExportsOf('seg'))) {
        if (name.startsWith(KEY(n))) {
          const when = new Date(Date.UTC(2020, 0, n));
          await utimes(path.join(layout.keptExportsOf('seg'), name), when, when);
        }
      }
    }
    expect(await store.find('seg', KEY(1))).toBeUndefined();
    expect(await store.find('seg', KEY(2))).toBeDefined();
    expect(await store.find('seg', KEY(3))).toBeDefined();
    expect(await readdir(layout.keptExportsOf('seg'))).toHaveLength(2);
  });

  it('answers nothing to open once the render is gone, and refuses a bound below one', async () => {
    const store = new KeptExportFileStore(layout, 1);
    const kept = await store.keep('seg', KEY(1), ['x']);
    await store.keep('seg', KEY(2), ['y']);
    expect(await kept!.open()).toBeUndefined();
    expect(() => new KeptExportFileStore(layout, 0)).toThrow(/at least 1/);
  });
});
