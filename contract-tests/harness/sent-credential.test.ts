import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiClient, sentCredential } from './api-client.js';
import { sharedContract } from './openapi-contract.js';
import type { Target } from './target.js';

describe('the credential the oracle is told of', () => {
  it('reads the key of a Bearer header in any case, after more spaces or a tab, and as fetch sends it (trailing whitespace stripped)', () => {
    expect(sentCredential('sk_a')).toEqual({ key: 'sk_a' });
    expect(sentCredential(null)).toEqual({ key: null });
    expect(sentCredential('!Bearer sk_a')).toEqual({ key: 'sk_a' });
    expect(sentCredential('!bearer sk_a')).toEqual({ key: 'sk_a', scheme: 'bearer ' });
    expect(sentCredential('!Bearer  sk_a')).toEqual({ key: 'sk_a', scheme: 'Bearer  ' });
    expect(sentCredential('!Bearer\tsk_a')).toEqual({ key: 'sk_a', scheme: 'Bearer\t' });
    expect(sentCredential('!Bearer sk_a ')).toEqual({ key: 'sk_a' });
    expect(sentCredential('!Bearer sk_a\n')).toEqual({ key: 'sk_a' });
  });

  it('tells a header of another scheme, with no space after Bearer, the key alone or Bearer alone apart', () => {
    for (const header of ['Basic c2tfYTo=', 'Token sk_a', 'Bearersk_a', 'sk_a', 'Bearer', 'Bearer  '])
      expect(sentCredential(`!${header}`), header).toEqual({ key: undefined, otherScheme: true });
  });

  it('records the header a reproducer sends as it went: a trailing newline is not in it', async () => {
    const received: Array<string | undefined> = [];
    const server = http.createServer((req, res) => {
      received.push(req.headers.authorization);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"no"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const target = {
        baseUrl,
        directBaseUrl: baseUrl,
        profile: 'staging',
        keys: { main: 'sk_test_sent_credential' },
        capabilities: new Set(),
        pollTimeoutMs: 1000,
        pollIntervalMs: 10,
        paceMs: 0,
        requestTimeoutMs: 2000,
        maxBodyBytes: 100_000,
        runId: 'sent-credential',
        namePrefix: 'contract-sent-credential',
        viaPrism: false,
      } satisfies Target;
      const api = new ApiClient(sharedContract(), target, target.keys.main);
      await api.call('listModels', { key: '!Bearer sk_throwaway_0123456789\n' });
      expect(received).toEqual(['Bearer sk_throwaway_0123456789']);
      expect(api.transcript.at(-1)?.request.rawAuthorization).toBe('Bearer sk_throwaway_0123456789');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
