/**
 * A snapshot is written whole before it is sent: a file that goes between the manifest and its
 * entry (a delete during the take) makes the take start again from the rows, and a state that
 * keeps changing under it, or an object store that stops sending an object's bytes, is answered
 * 503 with Retry-After, never a 200 cut short.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ObjectStore } from '../../domain/object-store.js';
import { ObjectStoreError } from '../../domain/object-store.js';
import { startMockServer, type RunningMock } from '../../server.js';
import { S3ObjectStore } from '../../stores/object-store/s3-store.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
/** Which reads of an object fail as if it had been deleted just before: the nth read, counted from 1. */
let failingReads: (n: number) => boolean = () => false;
/** Which reads get an S3 endpoint's answer that stops after its headers and 100 bytes. */
let stalledReads: (n: number) => boolean = () => false;
let reads = 0;

const stalling = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Length': '1000' });
  res.write(Buffer.alloc(100));
});
let stalledS3: S3ObjectStore;

function deletedMidTake(store: ObjectStore): ObjectStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readObject')
        return async (key: string) => {
          if (failingReads(++reads)) throw new ObjectStoreError('NoSuchKey', `no object ${key}`);
          return stalledReads(reads) ? stalledS3.readObject(key) : target.readObject(key);
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

let mock: RunningMock;
beforeAll(async () => {
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  stalledS3 = new S3ObjectStore({
    region: 'us-east-1',
    bucket: 'cells',
    endpoint: `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    tmpDir: os.tmpdir(),
    idleTimeoutMs: 200,
  });
  mock = await startMockServer({ port: 0, logLevel: 'silent' }, { wrapStore: deletedMidTake });
  const form = new FormData();
  const tiff = await readFile(path.join(import.meta.dirname, '../../../fixtures/samples/cells.tif'));
  form.append('file', new Blob([tiff]), 'cells.tif');
  const upload = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: form,
  });
  expect(upload.status).toBe(200);
});
afterAll(() => {
  stalling.closeAllConnections();
  stalling.close();
  return mock?.close();
});

it('takes the archive again when an object goes between its manifest and its entry', async () => {
  reads = 0;
  // A take reads the object twice: for the manifest's hash, then for its entry.
  failingReads = (n) => n === 2;
  const answer = await fetch(`${mock.url}/__mock/snapshot`);
  expect(answer.status).toBe(200);
  const archive = Buffer.from(await answer.arrayBuffer());
  expect(Number(answer.headers.get('content-length'))).toBe(archive.length);
  expect(reads).toBe(4);
  // The whole archive: its last two blocks are the end-of-archive zeros.
  expect(archive.subarray(-1024).every((byte) => byte === 0)).toBe(true);
});

it('answers 503 with Retry-After when the state keeps changing under the take', async () => {
  reads = 0;
  failingReads = (n) => n % 2 === 0;
  const answer = await fetch(`${mock.url}/__mock/snapshot`);
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(((await answer.json()) as { detail: string }).detail).toMatch(
    /changed while the snapshot was taken/,
  );
  failingReads = () => false;
  expect((await fetch(`${mock.url}/__mock/snapshot`)).status).toBe(200);
});

it('answers 503 with Retry-After when the object store stops sending an object in the middle of its bytes', async () => {
  reads = 0;
  stalledReads = (n) => n === 1;
  const answer = await fetch(`${mock.url}/__mock/snapshot`);
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(((await answer.json()) as { detail: string }).detail).toBe(
    'The object store is unavailable (TimeoutError); try again shortly.',
  );
  stalledReads = () => false;
  expect((await fetch(`${mock.url}/__mock/snapshot`)).status).toBe(200);
});
