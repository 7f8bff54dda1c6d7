import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../domain/control-records.js';
import { startMockServer, type RunningMock } from '../server.js';
import { requestLog } from './request-log.js';
import { requestPipeline } from './request-pipeline.js';

const lines: Array<Record<string, unknown>> = [];
let mock: RunningMock;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  mock = await startMockServer({ port: 0 }, { logger: pino({ level: 'info' }, sink) });
});
afterAll(() => mock.close());

describe('request logging', () => {
  it('gives each request an id, echoes it in X-Request-Id, and logs one JSON line with it', async () => {
    const response = await fetch(`${mock.url}/api/v1/models`);
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((r) => setTimeout(r, 50));
    const line = lines.find((l) => l.reqId === id);
    expect(line).toMatchObject({
      method: 'GET',
      path: '/api/v1/models',
      status: 401,
      operationId: 'listModels',
    });
  });

  it('logs a successful request at debug only, a refused one at info', async () => {
    const ok = await fetch(`${mock.url}/openapi.json`);
    const refused = await fetch(`${mock.url}/api/v1/models`);
    const [okId, refusedId] = [ok, refused].map((r) => r.headers.get('x-request-id'));
    await Promise.all([ok.arrayBuffer(), refused.arrayBuffer()]);
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.find((l) => l.reqId === refusedId)).toMatchObject({ status: 401 });
    expect(lines.find((l) => l.reqId === okId)).toBeUndefined();

    const debugLines: Array<Record<string, unknown>> = [];
    const debugSink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) debugLines.push(JSON.parse(line));
        done();
      },
    });
    const verbose = await startMockServer({ port: 0 }, { logger: pino({ level: 'debug' }, debugSink) });
    try {
      const answer = await fetch(`${verbose.url}/openapi.json`);
      await answer.arrayBuffer();
      await new Promise((r) => setTimeout(r, 50));
      expect(debugLines.find((l) => l.reqId === answer.headers.get('x-request-id'))).toMatchObject({
        status: 200,
        msg: 'request',
      });
    } finally {
      await verbose.close();
    }
  });

  it("keeps the client's own request id, and replaces an unsafe one", async () => {
    const own = await fetch(`${mock.url}/api/v1/models`, { headers: { 'x-request-id': 'client-trace-42' } });
    expect(own.headers.get('x-request-id')).toBe('client-trace-42');
    const unsafe = await fetch(`${mock.url}/api/v1/models`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(unsafe.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it('journals a long JSON body cut, told by the lengths its reading and its answer already knew', async () => {
    const key = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
    // Each refused part is an item of the answer, which an item's bounded input does not shorten.
    const parts = Array.from({ length: 400 }, () => ({ part_number: 0, etag: 'e'.repeat(200) }));
    const body = JSON.stringify({ parts });
    const answer = await fetch(`${mock.url}/api/v1/upload/${randomUUID()}/complete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    expect(answer.status).toBe(422);
    const id = answer.headers.get('x-request-id');
    await answer.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
    // The table itself holds the cut text: the whole body is not kept anywhere.
    const [kept] = (await mock.services.state.journal.query({ limit: 20 })).filter((e) => e.requestId === id);
    expect(kept.requestBody).toBe(`${body.slice(0, 4096)}… (${body.length} characters)`);
    expect((kept.responseBody as string).length).toBeLessThan(4200);
    expect(kept.requestShape).toMatchObject({ parts: [{ part_number: expect.any(String) }] });
  });

  it("logs a lost batch of the journal once, however many requests' entries it held", async () => {
    const warned: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) warned.push(JSON.parse(line));
        done();
      },
    });
    // A journal that answers a whole batch with one promise, as PostgreSQL's does.
    const recorded: JournalEntry[] = [];
    let batch = deferred();
    const journal = {
      record(entry: JournalEntry) {
        recorded.push(entry);
        return batch.promise;
      },
    };
    const stage = requestLog(
      pino({ level: 'warn' }, sink),
      journal,
      { observeRequest: () => undefined },
      { successes: 'debug' },
    );
    const server = createServer(
      requestPipeline([stage, (_req, res) => (res.end('ok'), true)], () => {}),
    ).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const requests = async (n: number) => {
      const total = recorded.length + n;
      for (let i = 0; i < n; i++) await (await fetch(url)).text();
      while (recorded.length < total) await new Promise((r) => setTimeout(r, 5));
    };
    try {
      await requests(5);
      batch.reject(new Error('database gone'));
      await new Promise((r) => setTimeout(r, 20));
      batch = deferred();
      await requests(5);
      batch.reject(new Error('database gone again'));
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      server.close();
    }
    expect(recorded).toHaveLength(10);
    expect(warned.map((l) => [l.msg, (l.err as { message: string }).message])).toEqual([
      ['request not journaled (nor the others recorded with it)', 'database gone'],
      ['request not journaled (nor the others recorded with it)', 'database gone again'],
    ]);
  });
});

function deferred(): { promise: Promise<void>; reject: (error: Error) => void } {
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((_resolve, fail) => (reject = fail));
  return { promise, reject };
}
