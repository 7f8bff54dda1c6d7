import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './api-client.js';
import { sharedContract } from './openapi-contract.js';
import { reproducerScript } from './reproducer.js';
import type { Target } from './target.js';

/**
 * A target that closes the connection instead of answering: the check fails with what happened in
 * words, and the request that got no answer is the reproducer's last step. Before, a check failed
 * with undici's bare "fetch failed" and the reproducer stopped one request short.
 */
let server: http.Server;
let baseUrl: string;

/** 16 MiB of spaces, gzipped once: made in the handler, on a loaded machine it outlasted the timeout. */
const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x20));

/** How the target misbehaves, by path; any other path closes the connection at once. */
const HOSTILE: Record<string, (res: http.ServerResponse) => void> = {
  '/api/v1/models': () => {}, // never answers
  '/drip': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  },
  '/huge': (res) => {
    res.writeHead(200, { 'content-type': 'text/csv' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = (): void => {
      while (!res.destroyed) if (!res.write(chunk)) return void res.once('drain', pump);
    };
    pump();
  },
  '/bomb': (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(bomb);
  },
  '/cut': (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{}');
    setTimeout(() => res.destroy(), 20);
  },
  '/lies': (res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(1e12) });
    res.write('x');
  },
};

beforeAll(async () => {
  // Closes every connection as soon as a request's headers arrive, before reading its body.
  server = http.createServer((req, res) => (HOSTILE[req.url!] ?? (() => req.socket.destroy()))(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function client(requestTimeoutMs = 500): ApiClient {
  const target: Target = {
    baseUrl,
    directBaseUrl: baseUrl,
    profile: 'staging',
    keys: { main: 'sk_test_transport_errors' },
    capabilities: new Set(),
    pollTimeoutMs: 1000,
    pollIntervalMs: 10,
    paceMs: 0,
    requestTimeoutMs,
    maxBodyBytes: 100_000,
    runId: 'transport-errors',
    namePrefix: 'contract-transport-errors',
    viaPrism: false,
  };
  return new ApiClient(sharedContract(), target, target.keys.main);
}

describe('a request that gets no answer', () => {
  it('fails naming the request and the reason, and stays in the transcript', async () => {
    const api = client();
    const sent = api.call('createPrediction', {
      rawBody: JSON.stringify({ padding: 'x'.repeat(4 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    await expect(sent).rejects.toThrow(
      /^POST \/api\/v1\/predict: no answer: the target closed the connection (while the request was still being sent|without an answer)/,
    );
    expect(api.transcript).toHaveLength(1);
    expect(api.transcript[0]).toMatchObject({ status: 0, request: { method: 'POST' } });
    expect(api.transcript[0].transportError).toMatch(/EPIPE|ECONNRESET|UND_ERR_SOCKET/);

    const { script } = reproducerScript({
      title: 'no answer',
      clauses: ['VAL-05'],
      error: 'no answer',
      baseUrls: [baseUrl],
      exchanges: api.transcript,
    });
    expect(script).toContain('echo "# 1. POST /api/v1/predict"');
    expect(script).toMatch(/# the suite saw: no answer, the target closed the connection/);
  });

  it('says when nothing listens at the address', async () => {
    const api = client();
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(api.raw('GET', `http://127.0.0.1:${port}/api/v1/models`)).rejects.toThrow(
      /no answer: nothing accepts connections at this address \(ECONNREFUSED/,
    );
    expect(api.transcript[0].transportError).toMatch(/ECONNREFUSED/);
  });

  it('gives up on an answer that never comes, or never ends, at the request timeout, and says one cut short', async () => {
    const api = client();
    await expect(api.call('listModels')).rejects.toThrow(
      /^GET \/api\/v1\/models: no answer: the target sent no answer within 500 ms \(--request-timeout-ms\)$/,
    );
    await expect(api.raw('GET', '/drip')).rejects.toThrow(
      /no answer: the target answered 200 but did not end its body within 500 ms \(--request-timeout-ms\): \d+ bytes came/,
    );
    await expect(api.raw('GET', '/cut')).rejects.toThrow(
      /no answer: the target answered 200 but its body broke off after 2 bytes \(UND_ERR_SOCKET: other side closed\)/,
    );
    expect(api.transcript.map((x) => x.status)).toEqual([0, 0, 0]);
  }, 5000);

  it('waits for one answer as long as its call says, and names where that time came from', async () => {
    const api = client();
    const started = Date.now();
    await expect(
      api.call('listModels', { timeout: { ms: 800, source: '100 bytes at 1 MB/s' } }),
    ).rejects.toThrow(/no answer: the target sent no answer within 800 ms \(100 bytes at 1 MB\/s\)$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(790);
  }, 5000);

  it('reads no more of a body than the limit, compressed or not, and says so', async () => {
    // The limit, not the timeout, must end each read, however slow a loaded machine makes it.
    const api = client(4000);
    for (const [path, size] of [
      ['/huge', /\d+ bytes came, and more were coming/],
      ['/bomb', /\d+ bytes came, and more were coming/],
      ['/lies', /Content-Length 1000000000000/],
    ] as const)
      await expect(api.raw('GET', path)).rejects.toThrow(
        new RegExp(
          `no answer: the target answered 200 with a body past the 100000 bytes the suite reads of one answer \\(--max-body-bytes\\): ${size.source}`,
        ),
      );
  }, 15_000);
});
