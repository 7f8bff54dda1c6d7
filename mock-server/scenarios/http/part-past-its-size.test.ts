/**
 * A part PUT with more bytes than the plan's part size is refused (400 EntityTooLarge) from its
 * Content-Length, before its bytes are read. A client that writes its whole body before it reads
 * the answer (undici's fetch, most SDKs) gets that answer only when the server reads the rest of
 * the body first: a body the server stops reading is a broken pipe for it, not a 400. Parts are
 * 8 MiB at least, the most a refused body is read by default, so the part stage reads more.
 */
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACME_KEY } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

/** `body` written 1 MiB at a time, slower than the server answers (a loaded machine, a slow link). */
function slowly(body: Buffer): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent >= body.length) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, 2));
      controller.enqueue(body.subarray(sent, sent + 1024 * 1024));
      sent += 1024 * 1024;
    },
  });
}

describe('a part PUT one byte past the part size', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock();
  });
  afterAll(() => mock.close());

  it('is answered 400 EntityTooLarge, which a client still writing its body reads', async () => {
    const opened = await fetch(`${mock.url}/api/v1/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'past.tif', size: 4 * 1024 ** 3 }),
    });
    const { upload } = (await opened.json()) as {
      upload: { part_size: number; urls: Array<{ url: string }> };
    };
    const body = Buffer.alloc(upload.part_size + 1, 7);
    const answer = await fetch(upload.urls[0].url, {
      method: 'PUT',
      body: slowly(body),
      duplex: 'half',
      headers: { 'content-length': String(body.length) },
    } as RequestInit);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('<Code>EntityTooLarge</Code>');
  });
});

describe('a part PUT of a part size and one byte, through the URL of an upload deleted since', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock();
  });
  afterAll(() => mock.close());

  it('is answered with the refusal, which a client still writing its body reads', async () => {
    // the URL is one the mock handed out, so its client may send a part's worth of bytes (and one
    // past, as the EntityTooLarge case): past the 8 MiB the mock reads of a refused body by default
    const headers = { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' };
    const opened = await fetch(`${mock.url}/api/v1/upload`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'gone.tif', size: 4 * 1024 ** 3 }),
    });
    const { image, upload } = (await opened.json()) as {
      image: { id: string };
      upload: { part_size: number; urls: Array<{ url: string }> };
    };
    const gone = await fetch(`${mock.url}/api/v1/image/${image.id}`, { method: 'DELETE', headers });
    expect(gone.status).toBe(200);
    const body = Buffer.alloc(upload.part_size + 1, 7);
    const answer = await fetch(upload.urls[0].url, {
      method: 'PUT',
      body: slowly(body),
      duplex: 'half',
      headers: { 'content-length': String(body.length) },
    } as RequestInit);
    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain('<Code>NoSuchUpload</Code>');
  });
});

describe('a part PUT refused for anything but its size', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock({ maxDiscardedBodyBytes: 1024 });
  });
  afterAll(() => mock.close());
  afterEach(() => vi.restoreAllMocks());

  it('reads no more of its body than --max-discarded-body-bytes: a made-up part URL is answered at once, its connection closed', async () => {
    // 1 MiB declared, past the 1 KiB the mock reads of a refused body but within a part: a
    // client with no valid part URL cannot have the server read a part's worth of bytes
    const url = new URL(`${mock.url}/storage/uploads/nobody/parts/1?expires=1&signature=x`);
    // The wait for the rest of a refused body is the discard's timer (discard-rest.ts): a refusal
    // read past the limit starts it, one given up at its Content-Length does not.
    const waitForRest = vi.spyOn(AbortSignal, 'timeout');
    const answer = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const req = request(
        url,
        { method: 'PUT', headers: { 'content-length': String(1024 * 1024) } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
        },
      );
      req.on('error', reject);
      req.write(Buffer.alloc(1024));
    });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.connection).toBe('close');
    // answered without waiting for the body it refused: no wait for the rest was begun
    expect(waitForRest).not.toHaveBeenCalled();
  });
});
