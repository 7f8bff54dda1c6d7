import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi, type TestContext } from 'vitest';
import { runCheck, type CheckContext, type CheckMeta } from './check.js';

/**
 * A check failed only by what server errors of one step brought (its cleanup's read of a share
 * answering 500, say) failed at that step: the report groups it under the step's root cause.
 */
let server: http.Server;
let reports: string;
const SHARE = '0b8e5c1a-4d2f-4e6a-9c3b-7a1d2e3f4a5b';
const IMAGE = '5b0d7c3e-2f4a-4c61-9e8b-1d2c3b4a5f60';
const TRACED = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';

beforeAll(async () => {
  // one share's 500 names each request's own id, as a target's error page may
  server = http.createServer((req, res) =>
    res
      .writeHead(500, { 'content-type': 'application/json' })
      .end(
        req.url!.includes(TRACED)
          ? `{"detail":"internal error","request_id":"${randomUUID()}"}`
          : '{"detail":"Injected fault: 500"}',
      ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reports = mkdtempSync(path.join(os.tmpdir(), 'server-error-step-'));
  vi.stubEnv('CONTRACT_BASE_URL', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  vi.stubEnv('CONTRACT_API_KEY', 'sk_test_main');
  vi.stubEnv('CONTRACT_PROFILE', 'mock');
  vi.stubEnv('CONTRACT_REPORT_DIR', reports);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  rmSync(reports, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const readShare = (ctx: CheckContext) => ctx.api.call('getShare', { params: { share_id: SHARE } });
const readImage = (ctx: CheckContext) => ctx.api.call('getImage', { params: { image_id: IMAGE } });

async function run(body: (ctx: CheckContext) => Promise<void>) {
  const testContext = { task: { meta: {} }, skip: () => {} } as unknown as TestContext;
  const error = await runCheck('server errors', { clauses: ['SHR-05'] }, body, testContext).then(
    () => undefined,
    (err: Error) => err.message,
  );
  return { error, meta: testContext.task.meta.contract as CheckMeta };
}

const SHARE_500 = {
  key: 'getShare answered 500',
  text: 'GET /api/v1/shares/{share_id} (getShare) answered 500',
  said: '{"detail":"Injected fault: 500"}',
};

it("names the step when the check's only failure is its cleanup meeting a server error", async () => {
  const { error, meta } = await run(async (ctx) => {
    ctx.cleanup.add(() => readShare(ctx));
  });
  expect(error).toMatch(/^the check passed, but its cleanup got server errors/);
  expect(meta.failedStep).toEqual(SHARE_500);
});

it("names it when the body's and the cleanup's violations all came from that one step", async () => {
  const { error, meta } = await run(async (ctx) => {
    ctx.cleanup.add(() => readShare(ctx));
    await readShare(ctx);
  });
  expect(error).toMatch(/^responses broke the document:[\s\S]*\nand its cleanup:/);
  expect(meta.failedStep).toEqual(SHARE_500);
});

it('names no step when the violations came from two', async () => {
  const { error, meta } = await run(async (ctx) => {
    ctx.cleanup.add(() => readShare(ctx));
    await readImage(ctx);
  });
  expect(error).toMatch(/getImage: server error 500/);
  expect(meta.failedStep).toBeUndefined();
});

it('names it when its 500s differ only in the request id each names', async () => {
  const readTraced = (ctx: CheckContext) => ctx.api.call('getShare', { params: { share_id: TRACED } });
  const { meta } = await run(async (ctx) => {
    ctx.cleanup.add(() => readTraced(ctx));
    await readTraced(ctx);
  });
  expect(meta.failedStep).toMatchObject({
    key: SHARE_500.key,
    said: expect.stringMatching(/internal error/),
  });
});
