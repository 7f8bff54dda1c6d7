import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { ApiClient, newCheckRecord } from './api-client.js';
import { bodyWithin } from './check-deadline.js';
import { Cleanup } from './cleanup.js';
import { sharedContract } from './openapi-contract.js';
import { targetFromEnv } from './target.js';

it("cuts a body that never ends at the check's deadline, and lets one that ends pass", async () => {
  await expect(bodyWithin(new Promise(() => {}), 50)).rejects.toThrow(
    /^the check did not end within 50 ms \(its timeout less 20000 ms kept for its cleanup\) and was cut there$/,
  );
  await expect(bodyWithin(Promise.resolve(), 50)).resolves.toBeUndefined();
});

it("sends no request of a cut body's after the cut, and the cleanup's still", async () => {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const target = targetFromEnv({ CONTRACT_BASE_URL: url, CONTRACT_API_KEY: 'sk_test_main' });
    const cut = new AbortController();
    const client = new ApiClient(sharedContract(), target, 'sk_test_main', {
      ...newCheckRecord(),
      cut: cut.signal,
    });
    await expect(bodyWithin(new Promise(() => {}), 10, cut)).rejects.toThrow(/was cut there/);
    await expect(client.call('listModels')).rejects.toThrow(/not sent: the check was cut at its deadline/);
    const cleanup = new Cleanup();
    cleanup.add(() => client.call('listModels'));
    await cleanup.run();
    expect(seen).toEqual(['GET /api/v1/models']);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
