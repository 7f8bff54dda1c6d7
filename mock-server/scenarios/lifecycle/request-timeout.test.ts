import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startInstantMock({ requestTimeoutMs: 1000 });
});
afterAll(() => mock.close());

describe('a request that never finishes arriving', () => {
  it('is answered 408 with a detail naming the limit, and the connection closed', async () => {
    const url = new URL(mock.url);
    const socket = connect(Number(url.port), url.hostname);
    const received = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
      socket.on('error', () => undefined);
    });
    socket.write(
      'POST /api/v1/image HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    const text = await received;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('within 1000 ms (--request-timeout-ms)');
  });

  it('refuses a request timeout of 0, which would let a request hold a connection forever', async () => {
    await expect(startInstantMock({ requestTimeoutMs: 0 })).rejects.toThrow(
      /--request-timeout-ms must be more than 0/,
    );
  });
});
