import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMock } from '../server.js';

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
});
