import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { EmbeddedObjectStore } from '../../stores/object-store/embedded-store.js';
import { ObjectStoreError } from '../../domain/object-store.js';
import { PartUrlSigner } from '../../stores/object-store/part-url-signer.js';
import { cors, parseCorsOrigins } from '../cors.js';
import { RouteTable } from '../route-table.js';
import { requestPipeline } from '../request-pipeline.js';
import { storageRoutes, storageStage } from './storage-router.js';
import { storeLayout } from '../../stores/data-layout.js';

const SECRET = 'test-secret';
const STORAGE_URL = 'http://127.0.0.1:8000/storage';
const PART_SIZE = 1024;

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function sha256OfStream(stream: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The path and query of a presigned URL, to send to the app on its own socket. */
function localPath(url: string): string {
  const parsed = new URL(url);
  expect(parsed.origin + parsed.pathname.slice(0, '/storage'.length)).toBe(STORAGE_URL);
  return parsed.pathname + parsed.search;
}

let dataDir: string;
let now: Date;
/** The clock as another instance moved it, read by the stage's refresh. */
let movedElsewhere: Date | undefined;
let store: EmbeddedObjectStore;
let app: http.RequestListener;
let listening: http.Server;
/** What reached the pipeline's failure answer: a part route answers every failure itself. */
let failures: unknown[] = [];

interface Answer {
  status: number;
  /** By lower-case name. */
  headers: Record<string, string>;
  text: string;
}

const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** One request to the app on a real socket, as a browser's PUT to a presigned URL arrives. */
async function send(
  method: string,
  target: string,
  { headers, body }: { headers?: Record<string, string>; body?: Buffer | string } = {},
  root = urlOf(listening),
): Promise<Answer> {
  const response = await fetch(root + target, { method, headers, body });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text: await response.text(),
  };
}

beforeEach(async () => {
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'object-store-'));
  now = new Date('2026-01-01T00:00:00Z');
  movedElsewhere = undefined;
  store = new EmbeddedObjectStore({
    dataDir,
    storageUrl: STORAGE_URL,
    signingSecret: SECRET,
    clock: () => now,
  });
  // as the mock's app runs it: CORS in front, for the whole route table
  app = requestPipeline(
    [
      cors(parseCorsOrigins('*'), new RouteTable(storageRoutes('/storage'))),
      storageStage(store.partReceiver, '/storage', {
        refreshClock: async () => {
          if (movedElsewhere) now = movedElsewhere;
        },
      }),
    ],
    (err, _req, res) => {
      failures.push(err);
      res.destroy();
    },
  );
  listening = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => listening.once('listening', resolve));
});

afterEach(async () => {
  expect(failures).toEqual([]);
  failures = [];
  await new Promise((resolve) => listening.close(resolve));
  await fsp.rm(dataDir, { recursive: true, force: true });
});

async function openUpload(totalSize = PART_SIZE * 2 + 100, key = 'images/abc/original.tif') {
  const partCount = Math.ceil(totalSize / PART_SIZE);
  const { uploadId } = await store.createMultipartUpload(key, { totalSize, partSize: PART_SIZE, partCount });
  return { uploadId, partCount, key };
}

async function putPart(uploadId: string, partNumber: number, body: Buffer) {
  const url = await store.presignPart(uploadId, partNumber, 3600);
  return send('PUT', localPath(url), { headers: { 'Content-Type': 'application/octet-stream' }, body });
}

describe('PUT a part', () => {
  it('answers 200 with the quoted MD5 of the bytes as ETag and an empty body', async () => {
    const { uploadId } = await openUpload();
    const body = randomBytes(PART_SIZE);
    const res = await putPart(uploadId, 1, body);
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe(`"${md5(body)}"`);
    expect(res.text ?? '').toBe('');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toMatch(/\bETag\b/);
    expect(await store.listParts(uploadId)).toEqual([
      { partNumber: 1, etag: `"${md5(body)}"`, size: PART_SIZE },
    ]);
  });

  it('issues URLs under the storage URL that name the upload and part but not the key', async () => {
    const { uploadId, key } = await openUpload();
    const url = new URL(await store.presignPart(uploadId, 2, 600));
    expect(url.href.startsWith(`${STORAGE_URL}/uploads/${uploadId}/parts/2?`)).toBe(true);
    expect(url.searchParams.get('expires')).toBe(String(Date.parse('2026-01-01T00:00:00Z') / 1000 + 600));
    expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.href).not.toContain('images');
    expect(decodeURIComponent(url.href)).not.toContain(key);
  });

  it('replaces a part on re-PUT: the ETag changes and listParts shows one entry', async () => {
    const { uploadId } = await openUpload();
    const first = randomBytes(PART_SIZE);
    const second = randomBytes(PART_SIZE);
    const a = await putPart(uploadId, 1, first);
    const b = await putPart(uploadId, 1, second);
    expect(a.headers.etag).not.toBe(b.headers.etag);
    expect(b.headers.etag).toBe(`"${md5(second)}"`);
    const parts = await store.listParts(uploadId);
    expect(parts).toEqual([{ partNumber: 1, etag: `"${md5(second)}"`, size: PART_SIZE }]);
  });

  it('accepts a matching Content-MD5 and refuses a mismatching one with 400 BadDigest, storing nothing', async () => {
    const { uploadId } = await openUpload();
    const body = randomBytes(100);
    const url = localPath(await store.presignPart(uploadId, 3, 600));
    const wrong = createHash('md5').update('something else').digest('base64');
    const bad = await send('PUT', url, { headers: { 'Content-MD5': wrong }, body });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/xml/);
    expect(bad.text).toContain('<Code>BadDigest</Code>');
    expect(await store.listParts(uploadId)).toEqual([]);

    const good = await send('PUT', url, {
      headers: { 'Content-MD5': createHash('md5').update(body).digest('base64') },
      body: body,
    });
    expect(good.status).toBe(200);
    expect(good.headers.etag).toBe(`"${md5(body)}"`);
  });

  it('refuses a malformed Content-MD5 with 400 InvalidDigest', async () => {
    const { uploadId } = await openUpload();
    const url = localPath(await store.presignPart(uploadId, 1, 600));
    const res = await send('PUT', url, {
      headers: { 'Content-MD5': 'not-base64' },
      body: Buffer.from('abc'),
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('<Code>InvalidDigest</Code>');
  });

  it('refuses a part larger than the plan part size with 400 EntityTooLarge (declared or streamed)', async () => {
    const { uploadId } = await openUpload();
    const url = localPath(await store.presignPart(uploadId, 1, 600));
    const declared = await send('PUT', url, { body: randomBytes(PART_SIZE + 1) });
    expect(declared.status).toBe(400);
    expect(declared.text).toContain('<Code>EntityTooLarge</Code>');
    expect(declared.text).toContain('1024');

    // Chunked, so the size is only discovered while streaming.
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, method: 'PUT', path: url, headers: { 'Transfer-Encoding': 'chunked' } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.write(randomBytes(600));
        req.end(randomBytes(600));
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('<Code>EntityTooLarge</Code>');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    await store.whenIdle();
    expect(await store.listParts(uploadId)).toEqual([]);
    expect(await fsp.readdir(storeLayout(dataDir).tmp)).toEqual([]);
  });

  it('accepts an empty body as a zero-byte part', async () => {
    const { uploadId } = await openUpload();
    const res = await putPart(uploadId, 3, Buffer.alloc(0));
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
  });

  it("answers a store's refusal with the status S3 gives its code: 409 for a part overtaken, 507 for a full disk", async () => {
    const { uploadId } = await openUpload();
    const putPartOf = vi.spyOn(store.partReceiver, 'putPart');
    putPartOf.mockRejectedValueOnce(new ObjectStoreError('OperationAborted', 'another PUT took its place'));
    const overtaken = await putPart(uploadId, 1, randomBytes(10));
    expect(overtaken.status).toBe(409);
    expect(overtaken.text).toContain('<Code>OperationAborted</Code>');
    putPartOf.mockRejectedValueOnce(new ObjectStoreError('InsufficientStorage', 'the disk is full'));
    const full = await putPart(uploadId, 1, randomBytes(10));
    expect(full.status).toBe(507);
    expect(full.text).toContain('<Code>InsufficientStorage</Code>');
    putPartOf.mockRestore();
  });
});

describe('signatures', () => {
  function expectXmlError(res: Answer, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(res.text).toMatch(
      new RegExp(
        `<Error><Code>${code}</Code><Message>[^<]+</Message>.*<RequestId>[0-9A-F]+</RequestId></Error>$`,
      ),
    );
    expect(res.headers['access-control-allow-origin']).toBe('*');
  }

  it('answers 403 SignatureDoesNotMatch for a tampered signature, expiry or part number', async () => {
    const { uploadId } = await openUpload();
    const url = new URL(await store.presignPart(uploadId, 1, 600));

    const badSig = new URL(url);
    const sig = badSig.searchParams.get('signature')!;
    badSig.searchParams.set('signature', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    expectXmlError(
      await send('PUT', badSig.pathname + badSig.search, { body: Buffer.from('x') }),
      403,
      'SignatureDoesNotMatch',
    );

    const laterExpiry = new URL(url);
    laterExpiry.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expectXmlError(
      await send('PUT', laterExpiry.pathname + laterExpiry.search, { body: Buffer.from('x') }),
      403,
      'SignatureDoesNotMatch',
    );

    const otherPart = url.pathname.replace(/\/parts\/1$/, '/parts/2') + url.search;
    expectXmlError(await send('PUT', otherPart, { body: Buffer.from('x') }), 403, 'SignatureDoesNotMatch');

    expect(await store.listParts(uploadId)).toEqual([]);
  });

  it('answers 403 when the signature is missing', async () => {
    const { uploadId } = await openUpload();
    const res = await send('PUT', `/storage/uploads/${uploadId}/parts/1`, { body: Buffer.from('x') });
    expectXmlError(res, 403, 'AccessDenied');
  });

  it('answers 403 AccessDenied "Request has expired" once the URL has expired', async () => {
    const { uploadId } = await openUpload();
    const url = localPath(await store.presignPart(uploadId, 1, 60));
    now = new Date(now.getTime() + 60_000);
    expect((await send('PUT', url, { body: Buffer.from('in time') })).status).toBe(200);
    now = new Date(now.getTime() + 1_000);
    const res = await send('PUT', url, { body: Buffer.from('too late') });
    expectXmlError(res, 403, 'AccessDenied');
    expect(res.text).toContain('<Message>Request has expired</Message>');
  });

  it('reads the clock again before the expiry: a clock another instance moved past it refuses the PUT', async () => {
    const { uploadId } = await openUpload();
    const url = localPath(await store.presignPart(uploadId, 1, 60));
    movedElsewhere = new Date(now.getTime() + 61_000);
    const res = await send('PUT', url, { body: Buffer.from('too late by the shared clock') });
    expectXmlError(res, 403, 'AccessDenied');
    expect(res.text).toContain('<Message>Request has expired</Message>');
  });

  it('refuses part numbers outside 1..partCount with 400 InvalidArgument naming the part and the range', async () => {
    const { uploadId, partCount } = await openUpload();
    expect(partCount).toBe(3);
    const signer = new PartUrlSigner(SECRET);
    const expires = Math.floor(now.getTime() / 1000) + 600;
    for (const partNumber of ['0', '4', '-1', '1e3', '01', '99999999999999999999999', '1.0']) {
      const query = signer.query({ method: 'PUT', uploadId, partNumber, expires });
      const res = await send(
        'PUT',
        `/storage/uploads/${uploadId}/parts/${encodeURIComponent(partNumber)}?${query}`,
        { body: Buffer.from('x') },
      );
      expectXmlError(res, 400, 'InvalidArgument');
      expect(res.text).toContain(`Part number &quot;${partNumber}&quot;`);
      expect(res.text).toContain('parts 1 to 3');
    }
    expect(await store.listParts(uploadId)).toEqual([]);
  });

  it('does not presign a part number outside the plan', async () => {
    const { uploadId } = await openUpload();
    await expect(store.presignPart(uploadId, 0, 60)).rejects.toMatchObject({ code: 'InvalidArgument' });
    await expect(store.presignPart(uploadId, 4, 60)).rejects.toMatchObject({ code: 'InvalidArgument' });
    await expect(store.presignPart('nope-nope-nope-nope', 1, 60)).rejects.toMatchObject({
      code: 'NoSuchUpload',
    });
  });
});

describe('CORS', () => {
  it('answers the preflight for a part URL and exposes the ETag', async () => {
    const { uploadId } = await openUpload();
    const url = localPath(await store.presignPart(uploadId, 1, 600));
    const res = await send('OPTIONS', url, {
      headers: {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'content-type, content-md5',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('PUT');
    expect(res.headers['access-control-allow-headers']).toMatch(/\bContent-Type\b.*\bContent-MD5\b/);
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(res.headers['access-control-expose-headers']).toMatch(/\bETag\b/);
  });

  it('answers a plain OPTIONS (no preflight) with the methods of a part URL', async () => {
    const res = await send('OPTIONS', '/storage/uploads/x/parts/1');
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('PUT, OPTIONS');
  });
});

describe('abort and unknown uploads', () => {
  it('answers 404 NoSuchUpload for a PUT after abort, with a URL that was valid', async () => {
    const { uploadId } = await openUpload();
    const url = localPath(await store.presignPart(uploadId, 1, 600));
    expect((await send('PUT', url, { body: randomBytes(10) })).status).toBe(200);
    await store.abortMultipartUpload(uploadId);
    const res = await send('PUT', url, { body: randomBytes(10) });
    expect(res.status).toBe(404);
    expect(res.text).toContain('<Code>NoSuchUpload</Code>');
    await expect(store.listParts(uploadId)).rejects.toMatchObject({ code: 'NoSuchUpload' });
    await expect(store.abortMultipartUpload(uploadId)).rejects.toMatchObject({ code: 'NoSuchUpload' });
    expect(await fsp.readdir(storeLayout(dataDir).multipart)).toEqual([]);
  });

  it('answers 405 for other methods on a part URL and 404 XML elsewhere', async () => {
    const get = await send('GET', '/storage/uploads/abc/parts/1');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('PUT, OPTIONS');
    expect(get.text).toContain('<Code>MethodNotAllowed</Code>');
    const other = await send('PUT', '/storage/elsewhere', { body: 'x' });
    expect(other.status).toBe(404);
    expect(other.headers['content-type']).toMatch(/^application\/xml/);
  });

  it('answers 400 XML for a path with malformed percent-encoding', async () => {
    const res = await send('PUT', '/storage/uploads/%E0%A4%A/parts/1?expires=1&signature=x', { body: 'x' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
  });
});

describe('complete', () => {
  it('with no parts assembles every part that arrived, in part-number order, byte-exact', async () => {
    const { uploadId, key } = await openUpload(PART_SIZE * 2 + 100);
    const parts = [randomBytes(PART_SIZE), randomBytes(PART_SIZE), randomBytes(100)];
    // Arrive out of order; assembly follows part numbers.
    for (const n of [3, 1, 2]) expect((await putPart(uploadId, n, parts[n - 1])).status).toBe(200);
    const laterUrl = localPath(await store.presignPart(uploadId, 1, 600));
    const done = await store.completeMultipartUpload(uploadId);
    const whole = Buffer.concat(parts);
    expect(done).toMatchObject({ key, size: whole.length });
    const digests = Buffer.concat(parts.map((p) => createHash('md5').update(p).digest()));
    expect(done.etag).toBe(`"${createHash('md5').update(digests).digest('hex')}-3"`);
    expect(await sha256OfStream(await store.readObject(key))).toBe(sha256(whole));
    expect(await sha256OfStream(createReadStream(store.objectPath(key)))).toBe(sha256(whole));
    // The upload is gone: its URLs answer 404.
    const res = await send('PUT', laterUrl, { body: parts[0] });
    expect(res.status).toBe(404);
    expect(res.text).toContain('<Code>NoSuchUpload</Code>');
    expect(await fsp.readdir(storeLayout(dataDir).multipart)).toEqual([]);
  });

  it('with an explicit subset assembles exactly those parts, accepting unquoted ETags and any order', async () => {
    const { uploadId, key } = await openUpload(PART_SIZE * 3);
    const parts = [randomBytes(PART_SIZE), randomBytes(PART_SIZE), randomBytes(PART_SIZE)];
    const etags: string[] = [];
    for (const n of [1, 2, 3]) etags.push((await putPart(uploadId, n, parts[n - 1])).headers.etag as string);
    const done = await store.completeMultipartUpload(uploadId, [
      { partNumber: 3, etag: etags[2].replace(/"/g, '') },
      { partNumber: 1, etag: etags[0] },
    ]);
    const expected = Buffer.concat([parts[0], parts[2]]);
    expect(done.size).toBe(expected.length);
    expect(await sha256OfStream(await store.readObject(key))).toBe(sha256(expected));
  });

  it('refuses a wrong ETag or a missing part naming the part, and the upload stays completable', async () => {
    const { uploadId, key } = await openUpload(PART_SIZE + 10, 'a/first.tif');
    const parts = [randomBytes(PART_SIZE), randomBytes(10)];
    const e1 = (await putPart(uploadId, 1, parts[0])).headers.etag as string;

    const missing = await store
      .completeMultipartUpload(uploadId, [
        { partNumber: 1, etag: e1 },
        { partNumber: 2, etag: `"${md5(parts[1])}"` },
      ])
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ObjectStoreError);
    expect(missing).toMatchObject({ code: 'InvalidPart', partNumber: 2 });
    expect((missing as Error).message).toMatch(/Part 2 has not been uploaded/);

    const e2 = (await putPart(uploadId, 2, parts[1])).headers.etag as string;
    const wrong = await store
      .completeMultipartUpload(uploadId, [
        { partNumber: 1, etag: e1 },
        { partNumber: 2, etag: '"0123456789abcdef0123456789abcdef"' },
      ])
      .catch((error: unknown) => error);
    expect(wrong).toMatchObject({ code: 'InvalidPart', partNumber: 2 });
    expect((wrong as Error).message).toMatch(
      /Part 2: ETag "0123456789abcdef0123456789abcdef" does not match/,
    );

    // Nothing changed: no object, both parts still listed, and the upload completes.
    expect(await store.exists(key)).toBe(false);
    expect((await store.listParts(uploadId)).map((p) => p.etag)).toEqual([e1, e2]);
    const done = await store.completeMultipartUpload(uploadId, [
      { partNumber: 1, etag: e1 },
      { partNumber: 2, etag: e2 },
    ]);
    expect(done).toMatchObject({ key, size: PART_SIZE + 10 });
    expect(await sha256OfStream(await store.readObject(key))).toBe(sha256(Buffer.concat(parts)));
  });

  it('keeps the upload open after a wrong ETag and completes it afterwards', async () => {
    const { uploadId, key } = await openUpload(PART_SIZE);
    const body = randomBytes(PART_SIZE);
    const etag = (await putPart(uploadId, 1, body)).headers.etag as string;
    await expect(
      store.completeMultipartUpload(uploadId, [{ partNumber: 1, etag: md5(Buffer.from('other')) }]),
    ).rejects.toMatchObject({ code: 'InvalidPart', partNumber: 1 });
    expect(await store.exists(key)).toBe(false);
    expect(await store.listParts(uploadId)).toEqual([{ partNumber: 1, etag, size: PART_SIZE }]);
    expect(await store.completeMultipartUpload(uploadId, [{ partNumber: 1, etag }])).toMatchObject({
      key,
      size: PART_SIZE,
    });
  });

  it('refuses duplicates, no parts, and a short part that is not the last', async () => {
    const { uploadId } = await openUpload(PART_SIZE * 2);
    await expect(store.completeMultipartUpload(uploadId)).rejects.toMatchObject({ code: 'NoParts' });
    const e1 = (await putPart(uploadId, 1, randomBytes(10))).headers.etag as string;
    const e2 = (await putPart(uploadId, 2, randomBytes(10))).headers.etag as string;
    await expect(
      store.completeMultipartUpload(uploadId, [
        { partNumber: 1, etag: e1 },
        { partNumber: 1, etag: e1 },
      ]),
    ).rejects.toMatchObject({ code: 'InvalidPartOrder', partNumber: 1 });
    const small = await store.completeMultipartUpload(uploadId).catch((error: unknown) => error);
    expect(small).toMatchObject({ code: 'EntityTooSmall', partNumber: 1 });
    expect((small as Error).message).toMatch(/Part 1 is 10 bytes/);
    // A short last part alone is fine.
    expect(await store.completeMultipartUpload(uploadId, [{ partNumber: 2, etag: e2 }])).toMatchObject({
      size: 10,
    });
  });
});

describe('robustness', () => {
  /** A request written by hand (fetch cannot stop halfway): a part PUT with half its body sent and stored. */
  async function halfSentPut() {
    const { uploadId } = await openUpload();
    const url = localPath(await store.presignPart(uploadId, 1, 600));
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'PUT',
      path: url,
      headers: { 'Content-Length': String(PART_SIZE) },
    });
    const clientError = new Promise((resolve) => req.on('error', resolve));
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('error', reject);
      req.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      });
    });
    // A test that destroys the request never reads the answer.
    answer.catch(() => undefined);
    req.write(randomBytes(PART_SIZE / 2));
    const close = () => new Promise((resolve) => server.close(resolve));
    try {
      await vi.waitFor(() => expect(store.partsInFlight).toBe(1), { timeout: 10_000, interval: 5 });
    } catch (err) {
      req.destroy();
      await close();
      throw err;
    }
    return { uploadId, url, server, req, clientError, answer, close };
  }

  it('a client that disconnects mid-PUT leaves no part, no temp file, and the server keeps serving', async () => {
    const { uploadId, url, server, req, clientError, close } = await halfSentPut();
    try {
      req.destroy();
      await clientError;
      await store.whenIdle();
      expect(store.partsInFlight).toBe(0);
      expect(await store.listParts(uploadId)).toEqual([]);
      expect(await fsp.readdir(storeLayout(dataDir).tmp)).toEqual([]);

      const body = randomBytes(PART_SIZE);
      const ok = await send('PUT', url, { body }, urlOf(server));
      expect(ok.status).toBe(200);
      expect(ok.headers.etag).toBe(`"${md5(body)}"`);
    } finally {
      await close();
    }
  });

  it('a PUT still streaming when the upload is aborted answers 404 NoSuchUpload and stores nothing', async () => {
    const { uploadId, req, answer, close } = await halfSentPut();
    try {
      await store.abortMultipartUpload(uploadId);
      req.end(randomBytes(PART_SIZE / 2));
      const res = await answer;
      expect(res.status).toBe(404);
      expect(res.text).toContain('<Code>NoSuchUpload</Code>');
      await store.whenIdle();
      expect(await fsp.readdir(storeLayout(dataDir).multipart)).toEqual([]);
      expect(await fsp.readdir(storeLayout(dataDir).tmp)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('survives a PUT with no body at all and garbage ids', async () => {
    const res = await send('PUT', '/storage/uploads/..%2F..%2Fetc/parts/1?expires=9999999999&signature=abc');
    expect(res.status).toBe(403);
    const signer = new PartUrlSigner(SECRET);
    const uploadId = '../../etc';
    const query = signer.query({ method: 'PUT', uploadId, partNumber: '1', expires: 9_999_999_999 });
    const crafted = await send('PUT', `/storage/uploads/${encodeURIComponent(uploadId)}/parts/1?${query}`, {
      body: 'x',
    });
    expect(crafted.status).toBe(404);
    expect(crafted.text).toContain('<Code>NoSuchUpload</Code>');
  });
});
