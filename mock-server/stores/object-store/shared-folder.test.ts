/**
 * Several processes on one data folder (mock instances on a shared file system): two
 * EmbeddedObjectStore objects with memories of their own, and a forked process
 * (test-support/object-store/store-process.ts), serve the same uploads. Whatever one of them
 * did, the others answer from it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { StoreCommand } from '../../../test-support/object-store/store-process.js';
import { storeLayout } from '../data-layout.js';
import { EmbeddedObjectStore } from './embedded-store.js';
import { FolderLocks } from './folder-lock.js';

const PART = 64 * 1024;
const KEY = 'img/original.tif';
const md5 = (data: Buffer) => `"${createHash('md5').update(data).digest('hex')}"`;

let dataDir: string;
let one: EmbeddedObjectStore;
let other: EmbeddedObjectStore;
const children: ChildProcess[] = [];

function storeOn(dir: string): EmbeddedObjectStore {
  return new EmbeddedObjectStore({
    dataDir: dir,
    storageUrl: 'http://127.0.0.1:8000/storage',
    signingSecret: 's',
  });
}

beforeEach(async () => {
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'shared-folder-'));
  one = storeOn(dataDir);
  other = storeOn(dataDir);
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await fsp.rm(dataDir, { recursive: true, force: true });
});

async function open(partCount: number, lastSize = PART): Promise<string> {
  const plan = { totalSize: PART * (partCount - 1) + lastSize, partSize: PART, partCount };
  return (await one.createMultipartUpload(KEY, plan)).uploadId;
}

function put(store: EmbeddedObjectStore, uploadId: string, n: number, bytes: Buffer) {
  return store.partReceiver.putPart(uploadId, String(n), Readable.from([bytes]));
}

const objectBytes = () => fsp.readFile(storeLayout(path.join(dataDir)).objectFile(KEY));

describe('two store objects on one folder', () => {
  it('parts PUT through both count, and the upload completes through either', async () => {
    const uploadId = await open(3, 1000);
    const parts = [randomBytes(PART), randomBytes(PART), randomBytes(1000)];
    await put(one, uploadId, 1, parts[0]);
    await put(other, uploadId, 2, parts[1]);
    await put(one, uploadId, 3, parts[2]);
    expect((await other.listParts(uploadId)).map((p) => p.etag)).toEqual(parts.map(md5));
    expect((await other.completeMultipartUpload(uploadId)).size).toBe(2 * PART + 1000);
    expect((await objectBytes()).equals(Buffer.concat(parts))).toBe(true);
    // Completed for both: no memory of either still answers for it.
    for (const store of [one, other]) {
      await expect(store.listParts(uploadId)).rejects.toMatchObject({ code: 'NoSuchUpload' });
      await expect(store.presignPart(uploadId, 1, 60)).rejects.toMatchObject({ code: 'NoSuchUpload' });
      await expect(put(store, uploadId, 1, parts[0])).rejects.toMatchObject({ code: 'NoSuchUpload' });
    }
  });

  it('an abort through one is seen by the other, which had read the upload before', async () => {
    const uploadId = await open(2);
    await put(other, uploadId, 1, randomBytes(PART));
    expect(await other.presignPart(uploadId, 2, 60)).toContain(uploadId);
    await one.abortMultipartUpload(uploadId);
    await expect(other.presignPart(uploadId, 2, 60)).rejects.toMatchObject({ code: 'NoSuchUpload' });
    await expect(put(other, uploadId, 2, randomBytes(PART))).rejects.toMatchObject({ code: 'NoSuchUpload' });
    await expect(other.completeMultipartUpload(uploadId)).rejects.toMatchObject({ code: 'NoSuchUpload' });
    expect(await fsp.readdir(storeLayout(path.join(dataDir)).multipart)).toEqual([]);
  });

  it('two completes at once: one assembles the object, the other answers NoSuchUpload', async () => {
    for (let round = 0; round < 10; round++) {
      const uploadId = await open(2);
      const parts = [randomBytes(PART), randomBytes(PART)];
      await put(one, uploadId, 1, parts[0]);
      await put(other, uploadId, 2, parts[1]);
      const outcomes = await Promise.allSettled([
        one.completeMultipartUpload(uploadId),
        other.completeMultipartUpload(uploadId),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({ code: 'NoSuchUpload' });
      expect((await objectBytes()).equals(Buffer.concat(parts))).toBe(true);
      await one.deleteObject(KEY);
    }
  });

  it('a part still streaming in another process when the upload completes lands in no object', async () => {
    const uploadId = await open(3);
    const parts = [randomBytes(PART), randomBytes(PART)];
    await put(one, uploadId, 1, parts[0]);
    await put(one, uploadId, 2, parts[1]);
    const late = new PassThrough().on('error', () => undefined);
    const third = other.partReceiver.putPart(uploadId, '3', late);
    late.write(Buffer.alloc(PART / 2, 0xaa));
    const data = storeLayout(path.join(dataDir)).uploadData(uploadId);
    await vi.waitFor(async () => expect((await fsp.readFile(data))[2 * PART]).toBe(0xaa));
    // `one` cannot stop `other`'s writer: it copies the parts out instead of renaming the data file.
    expect(await one.completeMultipartUpload(uploadId)).toMatchObject({ size: 2 * PART });
    late.end(Buffer.alloc(PART / 2, 0xaa));
    await expect(third).rejects.toMatchObject({ code: 'NoSuchUpload' });
    expect((await objectBytes()).equals(Buffer.concat(parts))).toBe(true);
  });

  it('of two PUTs of one part through the two, the one that finishes first is kept', async () => {
    const uploadId = await open(1);
    const slow = new PassThrough().on('error', () => undefined);
    const early = one.partReceiver.putPart(uploadId, '1', slow);
    slow.write(Buffer.alloc(PART / 2, 1));
    const slot = storeLayout(path.join(dataDir)).slotClaim(uploadId, 1);
    await vi.waitFor(() => fsp.access(slot));
    const kept = randomBytes(PART);
    expect(await put(other, uploadId, 1, kept)).toMatchObject({ etag: md5(kept) });
    slow.end(Buffer.alloc(PART / 2, 1));
    await expect(early).rejects.toMatchObject({ code: 'OperationAborted' });
    await one.completeMultipartUpload(uploadId);
    expect((await objectBytes()).equals(kept)).toBe(true);
  });
});

describe('a second process on the folder', () => {
  let seq = 0;
  const answers = new Map<number, (answer: { ok: boolean; value?: unknown; code?: string }) => void>();

  async function startChild(): Promise<
    (command: StoreCommand) => Promise<{ ok: boolean; value?: unknown; code?: string }>
  > {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const script = path.join(import.meta.dirname, '../../../test-support/object-store/store-process.ts');
    const child = fork(script, [dataDir], { execArgv: ['--import', tsx], stdio: 'inherit' });
    children.push(child);
    const ready = new Promise<void>((resolve) => answers.set(0, () => resolve()));
    child.on('message', (answer: { seq: number; ok: boolean }) => {
      answers.get(answer.seq)?.(answer);
      answers.delete(answer.seq);
    });
    await ready;
    return (command) =>
      new Promise((resolve) => {
        const at = ++seq;
        answers.set(at, resolve);
        child.send({ seq: at, command });
      });
  }

  it('parts PUT in both processes count; of two completes in the two, one wins', async () => {
    const send = await startChild();
    for (let round = 0; round < 5; round++) {
      const uploadId = await open(2);
      const parts = [randomBytes(PART), randomBytes(PART)];
      await put(one, uploadId, 1, parts[0]);
      const second = await send({
        op: 'putPart',
        uploadId,
        partNumber: 2,
        bytes: parts[1].toString('base64'),
      });
      expect(second).toMatchObject({ ok: true, value: { etag: md5(parts[1]) } });
      const [here, there] = await Promise.all([
        one.completeMultipartUpload(uploadId).then(
          () => 'completed',
          (error: { code: string }) => error.code,
        ),
        send({ op: 'complete', uploadId }).then((answer) => (answer.ok ? 'completed' : answer.code)),
      ]);
      expect([here, there].sort()).toEqual(['NoSuchUpload', 'completed']);
      expect((await objectBytes()).equals(Buffer.concat(parts))).toBe(true);
      await one.deleteObject(KEY);
    }
  });

  it('an abort in the other process is seen here', async () => {
    const send = await startChild();
    const uploadId = await open(2);
    await put(one, uploadId, 1, randomBytes(PART));
    expect(await send({ op: 'abort', uploadId })).toMatchObject({ ok: true });
    await expect(one.listParts(uploadId)).rejects.toMatchObject({ code: 'NoSuchUpload' });
    await expect(one.completeMultipartUpload(uploadId)).rejects.toMatchObject({ code: 'NoSuchUpload' });
  });

  it("the upload's lock is held across the processes, and a killed holder's lock is taken over", async () => {
    const send = await startChild();
    const file = path.join(dataDir, 'lock');
    expect(await send({ op: 'hold', file })).toMatchObject({ ok: true, value: 'held' });
    const order: string[] = [];
    const locks = new FolderLocks();
    const mine = locks.run(
      'k',
      file,
      async () => void order.push('mine'),
      () => new Error('gone'),
    );
    // Whatever the timing, `mine` runs only after the other process lets go.
    await new Promise((resolve) => setTimeout(resolve, 50));
    order.push('released');
    await send({ op: 'release' });
    await mine;
    expect(order).toEqual(['released', 'mine']);

    // Killed while holding: its pid is gone on this host, so the lock is taken over without waiting.
    const again = await startChild();
    expect(await again({ op: 'hold', file })).toMatchObject({ ok: true });
    const holder = children.at(-1)!;
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    await new FolderLocks({ staleMs: 3_600_000 }).run(
      'k',
      file,
      async () => order.push('taken over'),
      () => new Error('gone'),
    );
    expect(order.at(-1)).toBe('taken over');
  });

  it('a lock held longer than staleMs is touched by its holder, so no one takes it over', async () => {
    const send = await startChild();
    const file = path.join(dataDir, 'lock');
    expect(await send({ op: 'hold', file, staleMs: 1_500 })).toMatchObject({ ok: true });
    const order: string[] = [];
    const mine = new FolderLocks({ staleMs: 1_500 }).run(
      'k',
      file,
      async () => void order.push('mine'),
      () => new Error('gone'),
    );
    // More than twice staleMs: without the holder's touches its lock would be judged dead.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    order.push('released');
    await send({ op: 'release' });
    await mine;
    expect(order).toEqual(['released', 'mine']);
  });
});

describe('a complete cut short between its renames', () => {
  it('leaves the data file aside; the next complete puts it back and assembles the object', async () => {
    const uploadId = await open(2);
    const parts = [randomBytes(PART), randomBytes(PART)];
    await put(one, uploadId, 1, parts[0]);
    await put(one, uploadId, 2, parts[1]);
    // What a kill -9 during the complete's flush leaves: the data file renamed aside, no object.
    const data = storeLayout(path.join(dataDir)).uploadData(uploadId);
    await fsp.rename(data, `${data}.completing`);
    expect((await other.completeMultipartUpload(uploadId)).size).toBe(2 * PART);
    expect((await objectBytes()).equals(Buffer.concat(parts))).toBe(true);
  });
});
