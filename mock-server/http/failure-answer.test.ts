import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../domain/errors.js';
import { sendDomainError } from './error-responses.js';
import { failureAnswer } from './failure-answer.js';
import { requestPipeline } from './request-pipeline.js';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

describe("the app's answer to a failed request", () => {
  it('is a 500 naming the request id before any byte went out, a cut connection after', async () => {
    const logged: unknown[] = [];
    const listener = requestPipeline(
      [
        (req, res) => {
          res.locals.requestId = 'req-42';
          if (req.path === '/early') throw new Error('before the answer');
          res.writeHead(200, { 'Content-Length': '100' });
          res.write('partial');
          return Promise.reject(new Error('in the middle of the answer'));
        },
      ],
      failureAnswer({ error: (entry: unknown) => logged.push(entry) } as never),
    );
    server = http.createServer(listener).listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const early = await fetch(`${base}/early`);
    expect(early.status).toBe(500);
    expect(await early.json()).toEqual({ detail: 'Internal Server Error (request id req-42)' });

    const late = await fetch(`${base}/late`);
    expect(late.status).toBe(200);
    await expect(late.text(), 'the client sees the answer cut short, not a wait').rejects.toThrow();

    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ reqId: 'req-42', path: '/early' });
  });

  it('cuts an answer under way that a domain failure stops (the object store went unavailable mid-body), as the dispatcher meets it', async () => {
    const logged: unknown[] = [];
    const unavailable = new DomainError('store_unavailable', 'The object store is unavailable', 1);
    const listener = requestPipeline(
      [
        (req, res) =>
          (async () => {
            if (req.path === '/late') res.writeHead(200, { 'Content-Length': '100' }).write('partial');
            throw unavailable;
          })().catch((err: unknown) => {
            if (!sendDomainError(res, err)) throw err;
          }),
      ],
      failureAnswer({ error: (entry: unknown) => logged.push(entry) } as never),
    );
    server = http.createServer(listener).listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const late = await fetch(`${base}/late`);
    await expect(late.text(), 'the client sees the answer cut short, not a wait').rejects.toThrow();
    expect(logged).toEqual([expect.objectContaining({ err: unavailable, path: '/late' })]);
    // The server still answers: before the answer started, the failure is its 503.
    const early = await fetch(`${base}/early`);
    expect([early.status, early.headers.get('retry-after')]).toEqual([503, '1']);
  });
});
