import { createHash, randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { storeLayout } from '../data-layout.js';
import { EmbeddedObjectStore } from './embedded-store.js';
import { ObjectStoreError } from '../../domain/object-store.js';

let dataDir: string;
let store: EmbeddedObjectStore;

beforeEach(async () => {
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'embedded-store-'));
  store = new EmbeddedObjectStore({
    dataDir,
    storageUrl: 'http://127.0.0.1:8000/storage/',
    signingSecret: 's',
  });
});

afterEach(async () => {
  await fsp.rm(dataDir, { recursive: true, force: true });
});

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += (chunk as Buffer).toString('utf8');
  return out;
}

describe('whole objects', () => {
  it('puts from a stream, reads back, reports size and existence, deletes idempotently', async () => {
    expect(await store.exists('a/b.txt')).toBe(false);
    expect(
      await store.putObject('a/b.txt', Readable.from([Buffer.from('hello '), Buffer.from('world')])),
    ).toEqual({
      size: 11,
    });
    expect(await store.exists('a/b.txt')).toBe(true);
    expect(await store.headObject('a/b.txt')).toEqual({ size: 11 });
    expect(await text(await store.readObject('a/b.txt'))).toBe('hello world');
    expect(await fsp.readFile(store.objectPath('a/b.txt'), 'utf8')).toBe('hello world');
    await store.deleteObject('a/b.txt');
    await store.deleteObject('a/b.txt');
    expect(await store.exists('a/b.txt')).toBe(false);
    // Empty folders are pruned.
    expect(await fsp.readdir(storeLayout(dataDir).objects)).toEqual([]);
  });

  it('copies a file path by default and moves it when asked', async () => {
    const source = path.join(dataDir, 'source.bin');
    await fsp.writeFile(source, 'abc');
    expect(await store.putObject('copied', source)).toEqual({ size: 3 });
    await expect(fsp.access(source)).resolves.toBeUndefined();
    expect(await store.putObject('moved', source, { move: true })).toEqual({ size: 3 });
    await expect(fsp.access(source)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await text(await store.readObject('moved'))).toBe('abc');
  });

  it('replaces an existing object', async () => {
    await store.putObject('k', Readable.from([Buffer.from('one')]));
    await store.putObject('k', Readable.from([Buffer.from('two!')]));
    expect(await text(await store.readObject('k'))).toBe('two!');
  });

  it('reading a missing object throws NoSuchKey', async () => {
    await expect(store.readObject('nope')).rejects.toMatchObject({ code: 'NoSuchKey' });
    expect(await store.headObject('nope')).toBeNull();
  });

  it('refuses keys that would escape the data folder', async () => {
    for (const key of ['../x', 'a/../../x', '/abs', 'a//b', '', 'a\\b', 'a/./b']) {
      expect(() => store.objectPath(key)).toThrow(ObjectStoreError);
      await expect(store.putObject(key, Readable.from([Buffer.from('x')]))).rejects.toMatchObject({
        code: 'InvalidArgument',
      });
    }
    await expect(
      store.createMultipartUpload('../evil', { totalSize: 1, partSize: 1, partCount: 1 }),
    ).rejects.toMatchObject({ code: 'InvalidArgument' });
  });

  it('deletePrefix deletes exactly the keys that start with the prefix', async () => {
    const keys = ['images/1/a.tif', 'images/1/sub/b.png', 'images/12/c.tif', 'images/2/d.tif', 'other/e'];
    for (const key of keys) await store.putObject(key, Readable.from([Buffer.from(key)]));
    expect(await store.deletePrefix('images/1/')).toBe(2);
    expect(await store.exists('images/12/c.tif')).toBe(true);
    expect(await store.deletePrefix('images/1')).toBe(1);
    expect(await store.exists('images/2/d.tif')).toBe(true);
    expect(await store.exists('other/e')).toBe(true);
    expect(await store.deletePrefix('missing/')).toBe(0);
    await expect(store.deletePrefix('')).rejects.toMatchObject({ code: 'InvalidArgument' });
    expect((await fsp.readdir(path.join(storeLayout(dataDir).objects, 'images'))).sort()).toEqual(['2']);
  });

  it('deletePrefix deletes every other key of the prefix while folders under it vanish (a delete beside it)', async () => {
    // Each delete of one object prunes its emptied folder; a listing that fails as a whole when one
    // folder vanishes under it would leave the rest of the prefix on disk and answer 0.
    const n = 200;
    for (let i = 0; i < n; i++)
      await store.putObject(
        `images/x/${i}/${i % 2 ? 'kept.tif' : 'a.tif'}`,
        Readable.from([Buffer.from('x')]),
      );
    const beside = Promise.all(
      Array.from({ length: n / 2 }, (_, i) => store.deleteObject(`images/x/${2 * i}/a.tif`)),
    );
    const deleted = await store.deletePrefix('images/x/');
    await beside;
    for (let i = 1; i < n; i += 2) expect(await store.exists(`images/x/${i}/kept.tif`)).toBe(false);
    expect(deleted).toBeGreaterThanOrEqual(n / 2);
  });
});

describe('multipart bookkeeping', () => {
  it('validates the plan', async () => {
    await expect(
      store.createMultipartUpload('k', { totalSize: 10, partSize: 3, partCount: 3 }),
    ).rejects.toMatchObject({ code: 'InvalidArgument' });
    await expect(
      store.createMultipartUpload('k', { totalSize: 10, partSize: 1, partCount: 10_001 }),
    ).rejects.toMatchObject({ code: 'InvalidArgument' });
    await expect(
      store.createMultipartUpload('k', { totalSize: 10, partSize: 0, partCount: 1 }),
    ).rejects.toMatchObject({
      code: 'InvalidArgument',
    });
  });

  it('an upload outlives the store instance that opened it', async () => {
    const { uploadId } = await store.createMultipartUpload('k', { totalSize: 4, partSize: 4, partCount: 1 });
    await store.partReceiver.putPart(uploadId, '1', Readable.from([Buffer.from('data')]));
    const reopened = new EmbeddedObjectStore({ dataDir, storageUrl: 'http://x/storage', signingSecret: 's' });
    expect(await reopened.listParts(uploadId)).toEqual([
      { partNumber: 1, etag: `"${createHash('md5').update('data').digest('hex')}"`, size: 4 },
    ]);
    expect(await reopened.completeMultipartUpload(uploadId)).toMatchObject({ key: 'k', size: 4 });
    expect(await text(await store.readObject('k'))).toBe('data');
  });

  it('strips a trailing slash from the storage URL', async () => {
    const { uploadId } = await store.createMultipartUpload('k', { totalSize: 4, partSize: 4, partCount: 1 });
    expect(await store.presignPart(uploadId, 1, 60)).toMatch(
      new RegExp(
        `^http://127\\.0\\.0\\.1:8000/storage/uploads/${uploadId}/parts/1\\?expires=\\d+&signature=`,
      ),
    );
    await expect(store.presignPart(uploadId, 1, 0)).rejects.toMatchObject({ code: 'InvalidArgument' });
    await expect(store.presignPart(uploadId, 1, 8 * 24 * 3600)).rejects.toMatchObject({
      code: 'InvalidArgument',
    });
  });

  it('two concurrent completions assemble once; the second finds no upload', async () => {
    const { uploadId } = await store.createMultipartUpload('k', { totalSize: 8, partSize: 4, partCount: 2 });
    await store.partReceiver.putPart(uploadId, '1', Readable.from([randomBytes(4)]));
    await store.partReceiver.putPart(uploadId, '2', Readable.from([randomBytes(4)]));
    const results = await Promise.allSettled([
      store.completeMultipartUpload(uploadId),
      store.completeMultipartUpload(uploadId),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'NoSuchUpload' });
    expect(await store.headObject('k')).toEqual({ size: 8 });
  });

  it('an upload for a key completes over an existing object at that key', async () => {
    await store.putObject('k', Readable.from([Buffer.from('old')]));
    const { uploadId } = await store.createMultipartUpload('k', { totalSize: 3, partSize: 3, partCount: 1 });
    await store.partReceiver.putPart(uploadId, '1', Readable.from([Buffer.from('new')]));
    await store.completeMultipartUpload(uploadId);
    expect(await text(await store.readObject('k'))).toBe('new');
  });
});

/**
 * Until a PUT's first bytes are in its upload's data file, at `offset`: it has claimed its part's
 * slot by then. partsInFlight counts a PUT from its call, before it has looked at the slot, so on a
 * busy machine a second PUT could still claim the slot first.
 */
async function untilWritten(uploadId: string, offset: number, byte: number): Promise<void> {
  await vi.waitFor(async () => {
    const data = await fsp.open(storeLayout(dataDir).uploadData(uploadId), 'r');
    try {
      const { buffer } = await data.read(Buffer.alloc(1), 0, 1, offset);
      expect(buffer[0]).toBe(byte);
    } finally {
      await data.close();
    }
  });
}

describe('parts written in place', () => {
  const PART = 64 * 1024;
  const md5 = (data: Buffer) => `"${createHash('md5').update(data).digest('hex')}"`;

  async function open(partCount: number, lastSize = PART) {
    const totalSize = PART * (partCount - 1) + lastSize;
    const { uploadId } = await store.createMultipartUpload('img/original.tif', {
      totalSize,
      partSize: PART,
      partCount,
    });
    return uploadId;
  }

  /** A body that can be held open halfway, as a slow client's is. */
  function slowBody(): PassThrough {
    // As the HTTP layer does for a request: its error reaches the store through the stream.
    return new PassThrough().on('error', () => undefined);
  }

  async function objectBytes(): Promise<Buffer> {
    return fsp.readFile(store.objectPath('img/original.tif'));
  }

  it('parts arriving out of order and at once land at their offsets, and complete moves the file instead of copying it', async () => {
    const uploadId = await open(4, 1000);
    const parts = [randomBytes(PART), randomBytes(PART), randomBytes(PART), randomBytes(1000)];
    const etags = await Promise.all(
      [4, 2, 1, 3].map((n) => store.partReceiver.putPart(uploadId, String(n), Readable.from([parts[n - 1]]))),
    );
    expect(etags.map((e) => e.etag)).toEqual([4, 2, 1, 3].map((n) => md5(parts[n - 1])));
    const data = storeLayout(dataDir).uploadData(uploadId);
    const inode = (await fsp.stat(data)).ino;
    const done = await store.completeMultipartUpload(uploadId);
    expect(done.size).toBe(3 * PART + 1000);
    expect((await objectBytes()).equals(Buffer.concat(parts))).toBe(true);
    // The same file, renamed: complete costs no copy of the bytes.
    expect((await fsp.stat(store.objectPath('img/original.tif'))).ino).toBe(inode);
  });

  it('a resent part replaces the earlier bytes; a resend that fails leaves them as they were', async () => {
    const uploadId = await open(2);
    const first = randomBytes(PART);
    const second = randomBytes(PART);
    const other = randomBytes(PART);
    await store.partReceiver.putPart(uploadId, '1', Readable.from([first]));
    await store.partReceiver.putPart(uploadId, '2', Readable.from([other]));
    expect(await store.partReceiver.putPart(uploadId, '1', Readable.from([second]))).toEqual({
      etag: md5(second),
      size: PART,
    });

    const broken = slowBody();
    const failing = store.partReceiver.putPart(uploadId, '1', broken, { contentLength: PART });
    broken.write(randomBytes(PART / 2));
    // Half the new bytes reach the store before the client goes away.
    await vi.waitFor(() => expect(broken.readableFlowing && broken.readableLength === 0).toBe(true));
    broken.destroy(Object.assign(new Error('client went away'), { code: 'ECONNRESET' }));
    await expect(failing).rejects.toMatchObject({ code: 'IncompleteBody', partNumber: 1 });

    expect((await store.listParts(uploadId)).map((p) => p.etag)).toEqual([md5(second), md5(other)]);
    await store.completeMultipartUpload(uploadId);
    expect((await objectBytes()).equals(Buffer.concat([second, other]))).toBe(true);
  });

  it('a part larger than its slot is refused before a byte reaches the next part', async () => {
    const uploadId = await open(2);
    const second = randomBytes(PART);
    await store.partReceiver.putPart(uploadId, '2', Readable.from([second]));
    const oversized = Buffer.alloc(PART + 10, 0xee);
    await expect(
      store.partReceiver.putPart(
        uploadId,
        '1',
        Readable.from([oversized.subarray(0, PART - 5), oversized.subarray(PART - 5)]),
      ),
    ).rejects.toMatchObject({ code: 'EntityTooLarge', partNumber: 1 });
    const first = randomBytes(PART);
    await store.partReceiver.putPart(uploadId, '1', Readable.from([first]));
    await store.completeMultipartUpload(uploadId);
    expect((await objectBytes()).equals(Buffer.concat([first, second]))).toBe(true);
  });

  it('of two PUTs of one part at once, the one that finishes first is kept; the other answers OperationAborted', async () => {
    const uploadId = await open(1);
    const slow = slowBody();
    const early = store.partReceiver.putPart(uploadId, '1', slow);
    slow.write(Buffer.alloc(PART / 2, 1));
    await untilWritten(uploadId, 0, 1);
    const kept = randomBytes(PART);
    expect(await store.partReceiver.putPart(uploadId, '1', Readable.from([kept]))).toMatchObject({
      etag: md5(kept),
    });
    slow.end(Buffer.alloc(PART / 2, 1));
    await expect(early).rejects.toMatchObject({ code: 'OperationAborted', partNumber: 1 });
    await store.completeMultipartUpload(uploadId);
    expect((await objectBytes()).equals(kept)).toBe(true);
  });

  it('a part still streaming when the upload completes writes nothing into the object', async () => {
    const uploadId = await open(3);
    const parts = [randomBytes(PART), randomBytes(PART)];
    for (const n of [1, 2])
      await store.partReceiver.putPart(uploadId, String(n), Readable.from([parts[n - 1]]));
    const late = slowBody();
    const third = store.partReceiver.putPart(uploadId, '3', late);
    late.write(Buffer.alloc(PART / 2, 0xaa));
    await untilWritten(uploadId, 2 * PART, 0xaa);
    expect(await store.completeMultipartUpload(uploadId)).toMatchObject({ size: 2 * PART });
    late.end(Buffer.alloc(PART / 2, 0xaa));
    await expect(third).rejects.toMatchObject({ code: 'NoSuchUpload' });
    expect((await objectBytes()).equals(Buffer.concat(parts))).toBe(true);
  });

  it('after a restart, a part whose unflushed bytes were lost is refused by number at complete; sent again, the upload completes', async () => {
    const uploadId = await open(2);
    const parts = [randomBytes(PART), randomBytes(PART)];
    for (const n of [1, 2])
      await store.partReceiver.putPart(uploadId, String(n), Readable.from([parts[n - 1]]));
    // What a power loss does to bytes the operating system had not written yet: they are gone
    // (here: zeros) while the part's record, written earlier, stayed.
    const data = await fsp.open(storeLayout(dataDir).uploadData(uploadId), 'r+');
    await data.write(Buffer.alloc(100), 0, 100, PART + 10);
    await data.close();

    const restarted = new EmbeddedObjectStore({
      dataDir,
      storageUrl: 'http://x/storage',
      signingSecret: 's',
    });
    const refused = await restarted.completeMultipartUpload(uploadId).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'InvalidPart', partNumber: 2 });
    expect((refused as Error).message).toMatch(/Part 2 was lost.*PUT part 2 again/);
    expect(await restarted.exists('img/original.tif')).toBe(false);
    expect((await restarted.listParts(uploadId)).map((p) => p.partNumber)).toEqual([1]);

    await restarted.partReceiver.putPart(uploadId, '2', Readable.from([parts[1]]));
    await restarted.completeMultipartUpload(uploadId);
    expect((await objectBytes()).equals(Buffer.concat(parts))).toBe(true);
  });

  it('an explicit selection other than parts 1..k is copied out of the data file byte-exact', async () => {
    const uploadId = await open(3);
    const parts = [randomBytes(PART), randomBytes(PART), randomBytes(PART)];
    const etags: string[] = [];
    for (const n of [1, 2, 3])
      etags.push((await store.partReceiver.putPart(uploadId, String(n), Readable.from([parts[n - 1]]))).etag);
    await store.completeMultipartUpload(uploadId, [
      { partNumber: 2, etag: etags[1] },
      { partNumber: 3, etag: etags[2] },
    ]);
    expect((await objectBytes()).equals(Buffer.concat([parts[1], parts[2]]))).toBe(true);
  });
});

describe('acknowledged parts', () => {
  it("flushes a part's bytes before its PUT answers, written in place or sent again", async () => {
    const probe = await fsp.open(path.join(dataDir, 'probe'), 'w');
    const fileHandle = Object.getPrototypeOf(probe) as fsp.FileHandle;
    await probe.close();
    const datasync = vi.spyOn(fileHandle, 'datasync');
    try {
      const { uploadId } = await store.createMultipartUpload('k', {
        totalSize: 4,
        partSize: 4,
        partCount: 1,
      });
      await store.partReceiver.putPart(uploadId, '1', Readable.from([Buffer.from('data')]));
      expect(datasync).toHaveBeenCalledTimes(1);
      await store.partReceiver.putPart(uploadId, '1', Readable.from([Buffer.from('more')]));
      expect(datasync).toHaveBeenCalledTimes(2);
    } finally {
      datasync.mockRestore();
    }
  });
});
