import { createHash } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ObjectStoreError } from '../../domain/object-store.js';
import { S3ObjectStore, type S3ObjectStoreOptions } from './s3-store.js';

// These tests check the commands the adapter sends and how it maps answers, against a fake `send`.
// No live S3 or MinIO is involved.

type Handler = (command: { input: Record<string, unknown> }) => unknown;

function s3Error(name: string, status: number, message = name): S3ServiceException {
  return new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: status }, message });
}

let sent: Array<{ name: string; input: Record<string, unknown> }>;
type CommandClass = abstract new (...args: never[]) => unknown;
let handlers: Map<CommandClass, Handler>;
let tmpDir: string;

function makeStore(prefix = 'tenant-a') {
  return new S3ObjectStore(
    {
      region: 'us-east-1',
      bucket: 'cells',
      prefix,
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      tmpDir,
    },
    {
      send: async (command) => {
        const typed = command as { constructor: CommandClass; input: Record<string, unknown> };
        sent.push({ name: typed.constructor.name, input: typed.input });
        const handler = handlers.get(typed.constructor);
        if (handler === undefined) throw new Error(`unexpected ${typed.constructor.name}`);
        return handler(typed);
      },
    },
  );
}

beforeEach(async () => {
  sent = [];
  handlers = new Map();
  handlers.set(CreateMultipartUploadCommand, () => ({ UploadId: 'up-1' }));
  tmpDir = await fsp.mkdtemp(path.join(os.tmpdir(), 's3-store-'));
});

afterEach(async () => {
  await fsp.rm(tmpDir, { recursive: true, force: true });
});

const plan = { totalSize: 25, partSize: 10, partCount: 3 };
/** The image row's record of the upload, as the domain passes it (KnownUpload). */
const known = { key: 'k', plan };

describe('multipart uploads', () => {
  it('creates the upload under the prefix and presigns UploadPart URLs without checksum parameters', async () => {
    const store = makeStore('tenant-a/');
    expect(await store.createMultipartUpload('images/x.tif', plan)).toEqual({ uploadId: 'up-1' });
    expect(sent).toEqual([
      {
        name: 'CreateMultipartUploadCommand',
        input: { Bucket: 'cells', Key: 'tenant-a/images/x.tif', ContentType: 'application/octet-stream' },
      },
    ]);
    const url = new URL(await store.presignPart('up-1', 2, 600, { ...known, key: 'images/x.tif' }));
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:9000/cells/tenant-a/images/x.tif');
    expect(url.searchParams.get('uploadId')).toBe('up-1');
    expect(url.searchParams.get('partNumber')).toBe('2');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect([...url.searchParams.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
    // The part's planned length is signed: S3 refuses a PUT of any other size.
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host');
    await expect(store.presignPart('up-1', 4, 600, known)).rejects.toMatchObject({ code: 'InvalidArgument' });
  });

  it('lists parts across pages, quoting ETags', async () => {
    const store = makeStore();
    await store.createMultipartUpload('k', plan);
    handlers.set(ListPartsCommand, ({ input }) =>
      input.PartNumberMarker === undefined
        ? { Parts: [{ PartNumber: 2, ETag: '"b"', Size: 10 }], IsTruncated: true, NextPartNumberMarker: '2' }
        : { Parts: [{ PartNumber: 1, ETag: 'a', Size: 10 }], IsTruncated: false },
    );
    expect(await store.listParts('up-1', { known })).toEqual([
      { partNumber: 1, etag: '"a"', size: 10 },
      { partNumber: 2, etag: '"b"', size: 10 },
    ]);
    const lists = sent.filter((c) => c.name === 'ListPartsCommand').map((c) => c.input);
    expect(lists).toEqual([
      { Bucket: 'cells', Key: 'tenant-a/k', UploadId: 'up-1' },
      { Bucket: 'cells', Key: 'tenant-a/k', UploadId: 'up-1', PartNumberMarker: '2' },
    ]);
  });

  it('completes with the parts that arrived (ListParts), or exactly the listed ones sized by the plan', async () => {
    const store = makeStore();
    await store.createMultipartUpload('k', plan);
    handlers.set(ListPartsCommand, () => ({
      Parts: [
        { PartNumber: 1, ETag: '"a"', Size: 10 },
        { PartNumber: 2, ETag: '"b"', Size: 10 },
        { PartNumber: 3, ETag: '"c"', Size: 5 },
      ],
    }));
    handlers.set(CompleteMultipartUploadCommand, () => ({ ETag: '"abc-2"' }));
    const completed = () => sent.filter((c) => c.name === 'CompleteMultipartUploadCommand').at(-1)!.input;

    expect(await store.completeMultipartUpload('up-1', undefined, known)).toEqual({
      key: 'k',
      size: 25,
      etag: '"abc-2"',
    });
    expect(completed().MultipartUpload).toEqual({
      Parts: [
        { PartNumber: 1, ETag: '"a"' },
        { PartNumber: 2, ETag: '"b"' },
        { PartNumber: 3, ETag: '"c"' },
      ],
    });

    sent = [];
    const done = await store.completeMultipartUpload(
      'up-1',
      [
        { partNumber: 3, etag: 'c' },
        { partNumber: 1, etag: '"a"' },
      ],
      known,
    );
    expect(done).toEqual({ key: 'k', size: 15, etag: '"abc-2"' });
    expect(sent.some((c) => c.name === 'ListPartsCommand')).toBe(false);
    expect(completed()).toEqual({
      Bucket: 'cells',
      Key: 'tenant-a/k',
      UploadId: 'up-1',
      MultipartUpload: {
        Parts: [
          { PartNumber: 1, ETag: '"a"' },
          { PartNumber: 3, ETag: '"c"' },
        ],
      },
    });
  });

  it('maps S3 errors to ObjectStoreError codes', async () => {
    const store = makeStore();
    await store.createMultipartUpload('k', plan);
    handlers.set(ListPartsCommand, () => ({ Parts: [{ PartNumber: 1, ETag: '"a"', Size: 10 }] }));
    handlers.set(CompleteMultipartUploadCommand, () => {
      throw s3Error('EntityTooSmall', 400, 'Your proposed upload is smaller than the minimum allowed size');
    });
    const error = await store.completeMultipartUpload('up-1', undefined, known).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObjectStoreError);
    expect(error).toMatchObject({ code: 'EntityTooSmall' });

    handlers.set(AbortMultipartUploadCommand, () => {
      throw s3Error('NoSuchUpload', 404);
    });
    await expect(store.abortMultipartUpload('up-1', known)).rejects.toMatchObject({
      code: 'NoSuchUpload',
    });

    handlers.set(AbortMultipartUploadCommand, () => {
      throw s3Error('SlowDown', 503);
    });
    // A service that says it cannot now is unavailable (503 to the client), not a failure of the request.
    await expect(store.abortMultipartUpload('up-1', known)).rejects.toMatchObject({
      kind: 'store_unavailable',
    });
    handlers.set(AbortMultipartUploadCommand, () => {
      throw s3Error('MalformedXML', 400);
    });
    await expect(store.abortMultipartUpload('up-1', known)).rejects.toMatchObject({ code: 'InternalError' });
  });
});

describe('an upload any instance acts on (nothing of it kept in a process)', () => {
  // `instance` and `other` are two adapters on one bucket, as two mock instances would be; the fake
  // answers no ListParts and no ListMultipartUploads (an S3-compatible server may lack them), so a
  // test fails if either is sent.
  const parts = [
    { partNumber: 2, etag: 'b' },
    { partNumber: 1, etag: '"a"' },
    { partNumber: 3, etag: '"c"' },
  ];

  it('presigns, sizes, completes and aborts on another instance from the record and the listed parts alone', async () => {
    await makeStore().createMultipartUpload('k', plan);
    const other = makeStore();
    const url = new URL(await other.presignPart('up-1', 3, 600, known));
    expect(url.pathname).toBe('/cells/tenant-a/k');
    expect(await other.listParts('up-1', { known, selection: parts })).toEqual([
      { partNumber: 1, etag: '"a"', size: 10 },
      { partNumber: 2, etag: '"b"', size: 10 },
      { partNumber: 3, etag: '"c"', size: 5 },
    ]);
    handlers.set(CompleteMultipartUploadCommand, () => ({ ETag: '"abc-3"' }));
    expect(await other.completeMultipartUpload('up-1', parts, known)).toEqual({
      key: 'k',
      size: 25,
      etag: '"abc-3"',
    });
    expect(sent.at(-1)).toEqual({
      name: 'CompleteMultipartUploadCommand',
      input: {
        Bucket: 'cells',
        Key: 'tenant-a/k',
        UploadId: 'up-1',
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: '"a"' },
            { PartNumber: 2, ETag: '"b"' },
            { PartNumber: 3, ETag: '"c"' },
          ],
        },
      },
    });
    handlers.set(AbortMultipartUploadCommand, () => ({}));
    await makeStore().abortMultipartUpload('up-2', known);
    expect(sent.at(-1)).toEqual({
      name: 'AbortMultipartUploadCommand',
      input: { Bucket: 'cells', Key: 'tenant-a/k', UploadId: 'up-2' },
    });
    expect(sent.map((c) => c.name)).toEqual([
      'CreateMultipartUploadCommand',
      'CompleteMultipartUploadCommand',
      'AbortMultipartUploadCommand',
    ]);
  });

  it("answers a subset with the plan's sizes (the domain then finds the size short) and refuses a part outside the plan before sending anything", async () => {
    const other = makeStore();
    expect(await other.listParts('up-1', { known, selection: [{ partNumber: 3, etag: 'c' }] })).toEqual([
      { partNumber: 3, etag: '"c"', size: 5 },
    ]);
    const outside = await other
      .completeMultipartUpload('up-1', [...parts, { partNumber: 4, etag: 'd' }], known)
      .catch((error: unknown) => error);
    expect(outside).toMatchObject({ code: 'InvalidPart', partNumber: 4 });
    const twice = await other
      .completeMultipartUpload('up-1', [...parts, { partNumber: 1, etag: 'a' }], known)
      .catch((error: unknown) => error);
    expect(twice).toMatchObject({ code: 'InvalidPartOrder', partNumber: 1 });
    expect(sent).toEqual([]);
  });

  it("names the listed part S3 refused (its InvalidPart names none), and RGW's limit when the list is a subset", async () => {
    handlers.set(CompleteMultipartUploadCommand, () => {
      throw s3Error('InvalidPart', 400, 'One or more of the specified parts could not be found.');
    });
    handlers.set(ListPartsCommand, () => ({
      Parts: [
        { PartNumber: 1, ETag: '"a"', Size: 10 },
        { PartNumber: 2, ETag: '"b"', Size: 10 },
        { PartNumber: 3, ETag: '"c"', Size: 5 },
      ],
    }));
    const store = makeStore();
    const wrongEtag = await store
      .completeMultipartUpload('up-1', [...parts.slice(0, 2), { partNumber: 3, etag: 'zzz' }], known)
      .catch((error: unknown) => error);
    expect(wrongEtag).toBeInstanceOf(ObjectStoreError);
    expect(wrongEtag).toMatchObject({ code: 'InvalidPart', partNumber: 3 });
    expect((wrongEtag as Error).message).toBe(
      `Part 3: ETag "zzz" does not match the uploaded part's ETag "c"`,
    );

    const subset = await store
      .completeMultipartUpload('up-1', [{ partNumber: 1, etag: 'a' }], known)
      .catch((error: unknown) => error);
    expect(subset).toMatchObject({ code: 'InvalidPart', partNumber: 2 });
    expect((subset as Error).message).toMatch(
      /assembles no subset .* parts 2, 3 were uploaded but not listed/,
    );
  });

  it("maps S3's own refusal of a listed part that never arrived", async () => {
    handlers.set(CompleteMultipartUploadCommand, () => {
      throw s3Error('InvalidPart', 400, 'One or more of the specified parts could not be found.');
    });
    await expect(makeStore().completeMultipartUpload('up-1', parts, known)).rejects.toMatchObject({
      code: 'InvalidPart',
    });
  });
});

describe('whole objects', () => {
  it('puts a stream by spooling it, with a content length, and leaves no temp file', async () => {
    const store = makeStore();
    let body = '';
    handlers.set(PutObjectCommand, async ({ input }) => {
      for await (const chunk of input.Body as Readable) body += (chunk as Buffer).toString();
      return {};
    });
    expect(await store.putObject('a/b', Readable.from([Buffer.from('hello')]))).toEqual({ size: 5 });
    expect(body).toBe('hello');
    expect(sent[0].input).toMatchObject({ Bucket: 'cells', Key: 'tenant-a/a/b', ContentLength: 5 });
    expect(await fsp.readdir(tmpDir)).toEqual([]);
  });

  it('moves a file path source only when asked', async () => {
    const store = makeStore();
    handlers.set(PutObjectCommand, async ({ input }) => {
      // read whole before answering, as S3 does: a body still unread when the file is moved away
      // would fail later, in whatever test runs then
      for await (const _chunk of input.Body as Readable);
      return {};
    });
    const file = path.join(tmpDir, 'f');
    await fsp.writeFile(file, 'abc');
    await store.putObject('k', file);
    await expect(fsp.access(file)).resolves.toBeUndefined();
    await store.putObject('k', file, { move: true });
    await expect(fsp.access(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('head, exists, read, delete map NotFound and NoSuchKey', async () => {
    const store = makeStore();
    handlers.set(HeadObjectCommand, ({ input }) => {
      if (input.Key === 'tenant-a/there') return { ContentLength: 42 };
      throw s3Error('NotFound', 404);
    });
    handlers.set(GetObjectCommand, () => {
      throw s3Error('NoSuchKey', 404);
    });
    handlers.set(DeleteObjectCommand, () => ({}));
    expect(await store.headObject('there')).toEqual({ size: 42 });
    expect(await store.exists('missing')).toBe(false);
    await expect(store.readObject('missing')).rejects.toMatchObject({ code: 'NoSuchKey' });
    await store.deleteObject('there');
    expect(sent.at(-1)).toEqual({
      name: 'DeleteObjectCommand',
      input: { Bucket: 'cells', Key: 'tenant-a/there' },
    });
  });

  it('deletePrefix lists page by page and deletes in batches', async () => {
    const store = makeStore();
    handlers.set(ListObjectsV2Command, ({ input }) =>
      input.ContinuationToken === undefined
        ? {
            Contents: [{ Key: 'tenant-a/img/1' }, { Key: 'tenant-a/img/2' }],
            IsTruncated: true,
            NextContinuationToken: 't',
          }
        : { Contents: [{ Key: 'tenant-a/img/3' }], IsTruncated: false },
    );
    handlers.set(DeleteObjectsCommand, () => ({}));
    expect(await store.deletePrefix('img/')).toBe(3);
    const deletes = sent.filter((c) => c.name === 'DeleteObjectsCommand').map((c) => c.input);
    expect(deletes).toEqual([
      {
        Bucket: 'cells',
        Delete: { Objects: [{ Key: 'tenant-a/img/1' }, { Key: 'tenant-a/img/2' }], Quiet: true },
      },
      { Bucket: 'cells', Delete: { Objects: [{ Key: 'tenant-a/img/3' }], Quiet: true } },
    ]);
    expect(sent.find((c) => c.name === 'ListObjectsV2Command')!.input).toEqual({
      Bucket: 'cells',
      Prefix: 'tenant-a/img/',
    });

    handlers.set(DeleteObjectsCommand, () => ({
      Errors: [{ Key: 'tenant-a/img/1', Code: 'AccessDenied', Message: 'no' }],
    }));
    await expect(store.deletePrefix('img/')).rejects.toMatchObject({ code: 'InternalError' });
  });
});

describe('an S3 service that does not answer', () => {
  function storeAt(port: number, more: Partial<S3ObjectStoreOptions> = {}): S3ObjectStore {
    return new S3ObjectStore({
      region: 'us-east-1',
      bucket: 'cells',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      tmpDir: os.tmpdir(),
      ...more,
    });
  }

  async function listening(server: net.Server): Promise<number> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('fails a call as unavailable (503, Retry-After) once a service that took the connection stays silent, within about 10 s', async () => {
    // Accepts every connection and never answers, as a stalled S3 does.
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => sockets.push(socket));
    const port = await listening(server);
    const started = Date.now();
    try {
      await expect(storeAt(port).headObject('images/a')).rejects.toMatchObject({
        kind: 'store_unavailable',
        retryAfterSeconds: 1,
        message: 'The object store is unavailable (TimeoutError); try again shortly.',
      });
      expect(Date.now() - started).toBeLessThan(13_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  }, 20_000);

  it('fails the read of an object whose bytes stop after the headers as unavailable, and keeps no part of it', async () => {
    // Answers the status, the headers and 100 of the 1000 bytes; then sends nothing more (the
    // first read), or drops the connection (the second).
    let reads = 0;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write(Buffer.alloc(100));
      if (++reads === 2) setTimeout(() => res.destroy(), 50);
    });
    const store = storeAt(await listening(server), { idleTimeoutMs: 200, tmpDir });
    const drain = async (bytes: NodeJS.ReadableStream) => {
      for await (const _chunk of bytes);
    };
    try {
      await expect(drain(await store.readObject('images/a'))).rejects.toMatchObject({
        kind: 'store_unavailable',
        retryAfterSeconds: 1,
        message: 'The object store is unavailable (TimeoutError); try again shortly.',
      });
      await expect(store.localFileOf('images/a')).rejects.toMatchObject({
        kind: 'store_unavailable',
        message: 'The object store is unavailable (ECONNRESET); try again shortly.',
      });
      expect(await fsp.readdir(tmpDir)).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  describe('a complete whose answer is lost after the service assembled the object', () => {
    const md5 = (text: string) => createHash('md5').update(text).digest('hex');
    const listed = ['a', 'b', 'c'].map((bytes, i) => ({ partNumber: i + 1, etag: `"${md5(bytes)}"` }));
    // S3's ETag of the assembled object: the MD5 of the parts' MD5s, and their count.
    const assembled = `"${createHash('md5')
      .update(Buffer.concat(listed.map((part) => Buffer.from(part.etag.slice(1, -1), 'hex'))))
      .digest('hex')}-3"`;

    /** Assembles at the first complete, whose answer it drops or never sends; a later one finds the upload gone. */
    function losingAnswers(loss: 'dropped' | 'silent' | 'none', object?: { size: number; etag: string }) {
      let done = false;
      const seen: string[] = [];
      const server = http.createServer((req, res) => {
        seen.push(req.method!);
        if (req.method === 'HEAD') {
          if (done && object) res.writeHead(200, { 'Content-Length': object.size, ETag: object.etag });
          else res.writeHead(404);
          return res.end();
        }
        req.resume().on('end', () => {
          const first = !done && loss !== 'none';
          done = true;
          if (first && loss === 'dropped') return req.socket.destroy();
          if (first) return; // silent: the idle timeout ends the attempt
          res.writeHead(404, { 'Content-Type': 'application/xml' });
          res.end('<Error><Code>NoSuchUpload</Code><Message>The upload does not exist</Message></Error>');
        });
      });
      return { server, seen };
    }

    it.each(['dropped', 'silent'] as const)(
      'answers it completed when the connection was %s and the SDK retry found the upload gone',
      async (loss) => {
        const { server, seen } = losingAnswers(loss, { size: 25, etag: assembled });
        const store = storeAt(await listening(server), { idleTimeoutMs: 200 });
        try {
          expect(await store.completeMultipartUpload('up-1', listed, known)).toEqual({
            key: 'k',
            size: 25,
            etag: assembled,
          });
          expect(seen).toEqual(['POST', 'POST', 'HEAD']);
        } finally {
          server.closeAllConnections();
          server.close();
        }
      },
    );

    it('answers NoSuchUpload as before when the object at the key is not what these parts make, or none is', async () => {
      const fakes = [
        losingAnswers('dropped', { size: 25, etag: '"0123456789abcdef0123456789abcdef-3"' }),
        losingAnswers('dropped', { size: 24, etag: assembled }),
        losingAnswers('none'),
      ];
      for (const { server } of fakes) {
        const store = storeAt(await listening(server));
        try {
          await expect(store.completeMultipartUpload('up-1', listed, known)).rejects.toMatchObject({
            code: 'NoSuchUpload',
          });
        } finally {
          server.closeAllConnections();
          server.close();
        }
      }
    });

    it('answers NoSuchUpload when a listed ETag is no MD5, though its digits name the parts of the object', async () => {
      const tailed = listed.map((part) => ({ ...part, etag: `"${part.etag.slice(1, -1)}zz"` }));
      const { server } = losingAnswers('dropped', { size: 25, etag: assembled });
      const store = storeAt(await listening(server));
      try {
        await expect(store.completeMultipartUpload('up-1', tailed, known)).rejects.toMatchObject({
          code: 'NoSuchUpload',
        });
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  });

  it('fails a call as unavailable when nothing accepts the connection, or S3 answers a 5xx', async () => {
    const server = net.createServer();
    const port = await listening(server);
    await new Promise((resolve) => server.close(resolve));
    await expect(storeAt(port).readObject('images/a')).rejects.toMatchObject({
      kind: 'store_unavailable',
      message: 'The object store is unavailable (ECONNREFUSED); try again shortly.',
    });
    const slow = new S3ObjectStore(
      { region: 'us-east-1', bucket: 'cells', tmpDir: os.tmpdir() },
      { send: () => Promise.reject(s3Error('SlowDown', 503, 'Please reduce your request rate.')) },
    );
    await expect(slow.deleteObject('images/a')).rejects.toMatchObject({
      kind: 'store_unavailable',
      message: 'The object store is unavailable (HTTP 503); try again shortly.',
    });
  });

  it("fails a call as unavailable when the bucket is gone: the operator's to put right, not the client's request", async () => {
    const gone = new S3ObjectStore(
      { region: 'us-east-1', bucket: 'cells', tmpDir: os.tmpdir() },
      { send: () => Promise.reject(s3Error('NoSuchBucket', 404, 'The specified bucket does not exist')) },
    );
    await expect(gone.deleteObject('images/a')).rejects.toMatchObject({
      kind: 'store_unavailable',
      message: 'The object store is unavailable (its bucket does not exist); try again shortly.',
    });
  });
});
