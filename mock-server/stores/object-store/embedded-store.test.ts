import { createHash, randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

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

describe('objects', () => {
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
    expect(await fsp.readdir(path.join(dataDir, 'objects'))).toEqual([]);
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
    await expect(store.readObject('nope')).rejects.toMatchObject({ code: 'NoSuchKey', httpStatus: 404 });
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
    expect((await fsp.readdir(path.join(dataDir, 'objects', 'images'))).sort()).toEqual(['2']);
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
    await store.putPart(uploadId, '1', Readable.from([Buffer.from('data')]));
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
    await store.putPart(uploadId, '1', Readable.from([randomBytes(4)]));
    await store.putPart(uploadId, '2', Readable.from([randomBytes(4)]));
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
    await store.putPart(uploadId, '1', Readable.from([Buffer.from('new')]));
    await store.completeMultipartUpload(uploadId);
    expect(await text(await store.readObject('k'))).toBe('new');
  });
});
