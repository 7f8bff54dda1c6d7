import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it, vi, type TestContext } from 'vitest';
import { ApiClient, newCheckRecord } from './api-client.js';
import { runCheck } from './check.js';
import { bodyWithin, checkTimeoutMs, CLEANUP_RESERVE_MS } from './check-deadline.js';
import { Cleanup } from './cleanup.js';
import { trackImage } from './flows.js';
import { sharedContract } from './openapi-contract.js';
import { pollTimeoutMs, targetFromEnv } from './target.js';

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

const IMAGE = '5b0d7c3e-2f4a-4c61-9e8b-1d2c3b4a5f60';

it('awaits the undo of what a cut body created late, and fails the check it belongs to with what it met', async () => {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    // the body's request, answered well after its cut (50 ms), even on a loaded machine; the
    // undo's read names the run's image
    if (req.url === '/api/v1/models') setTimeout(() => json(200, []), 1500);
    else if (req.method === 'GET') json(200, { id: IMAGE, name: 'contract-late-cells.tif' });
    else json(500, { detail: 'busy' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reports = mkdtempSync(path.join(os.tmpdir(), 'late-undo-'));
  try {
    vi.stubEnv('CONTRACT_BASE_URL', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    vi.stubEnv('CONTRACT_API_KEY', 'sk_test_main');
    vi.stubEnv('CONTRACT_PROFILE', 'mock');
    vi.stubEnv('CONTRACT_RUN_ID', 'late');
    vi.stubEnv('CONTRACT_REPORT_DIR', reports);
    const finished: Array<() => Promise<void>> = [];
    const testContext = {
      task: { meta: {} },
      skip: (reason: string) => {
        throw new Error(reason);
      },
      onTestFinished: (hook: () => Promise<void>) => finished.push(hook),
    } as unknown as TestContext;
    // its timeout less the cleanup reserve: the body is cut after 50 ms
    const check = runCheck(
      'late',
      { clauses: ['MOD-01'], timeout: 20_050 },
      async (ctx) => {
        await ctx.api.call('listModels');
        trackImage(ctx, ctx.api, IMAGE);
      },
      testContext,
    );
    await expect(check).rejects.toThrow(/was cut there/);
    expect(seen).toEqual(['GET /api/v1/models']);
    expect(finished).toHaveLength(1);
    await expect(finished[0]!()).rejects.toThrow(
      new RegExp(
        `^after the check was judged, what its cut body still created, and its undo:\\n- deleteImage: server error 500: .*\\n- left on the target, kept in the ledger for --cleanup-only: image ${IMAGE}: DELETE answered 500: left for --cleanup-only$`,
      ),
    );
    expect(seen).toEqual([
      'GET /api/v1/models',
      `GET /api/v1/upload/${IMAGE}`,
      `DELETE /api/v1/image/${IMAGE}`,
    ]);
  } finally {
    vi.unstubAllEnvs();
    rmSync(reports, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it("lengthens a check's timeout by as much as the poll timeout exceeds the mock's, so a 150 s prediction on staging is not cut", () => {
  const timeout = (env: NodeJS.ProcessEnv, own?: number) => checkTimeoutMs(own, pollTimeoutMs(env));
  expect(timeout({})).toBe(120_000);
  expect(timeout({ CONTRACT_POLL_TIMEOUT_MS: '5000' }, 180_000)).toBe(180_000);
  const staging = timeout({ CONTRACT_BASE_URL: 'https://staging.example' });
  expect(staging).toBe(390_000);
  // the body's budget (the timeout less the cleanup reserve) holds a whole poll and 70 s besides
  expect(staging - CLEANUP_RESERVE_MS).toBeGreaterThanOrEqual(300_000 + 70_000);
  expect(timeout({ CONTRACT_PROFILE: 'production', CONTRACT_POLL_TIMEOUT_MS: '600000' })).toBe(690_000);
});
