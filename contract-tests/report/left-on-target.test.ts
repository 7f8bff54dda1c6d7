import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi, type TestContext } from 'vitest';
import { CLAUSES } from '../clauses.js';
import { runCheck, type CheckContext } from '../harness/check.js';
import { trackImage } from '../harness/flows.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { buildReport, type CheckResult } from './conformance-model.js';
import { renderHtml } from './render-html.js';
import { renderMarkdown } from './render-markdown.js';

/**
 * A target that refuses the cleanup's DELETE with a 429: what the check made stays there, and the
 * report says so in a section of its own, whether the check passed or failed. Before, a passing
 * check's leftover showed only in the ledger.
 */
const KEPT = {
  passed: '5b0d7c3e-2f4a-4c61-9e8b-1d2c3b4a5f60',
  failed: '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
};
let server: http.Server;
let reports: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const id = req.url!.split('/').at(-1);
    const json = { 'content-type': 'application/json' };
    if (req.method === 'GET')
      res.writeHead(200, json).end(JSON.stringify({ id, name: 'contract-left-on-target-kept.tif' }));
    else res.writeHead(429, { ...json, 'retry-after': '30' }).end('{"detail":"Rate limit reached"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reports = mkdtempSync(path.join(os.tmpdir(), 'left-on-target-'));
  vi.stubEnv('CONTRACT_BASE_URL', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  vi.stubEnv('CONTRACT_API_KEY', 'sk_test_main');
  vi.stubEnv('CONTRACT_PROFILE', 'staging');
  vi.stubEnv('CONTRACT_RUN_ID', 'left-on-target');
  vi.stubEnv('CONTRACT_REPORT_DIR', reports);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  rmSync(reports, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A check that makes (as its answer says) one image, and passes or fails, as the report sees it. */
async function making(title: string, image: string, fails: boolean): Promise<CheckResult> {
  const testContext = { task: { meta: {} }, skip: () => {} } as unknown as TestContext;
  const body = async (ctx: CheckContext) => {
    trackImage(ctx, ctx.api, image);
    if (fails) throw new Error('the check failed by itself');
  };
  const clauses = [CLAUSES[0].id];
  const outcome = await runCheck(title, { clauses }, body, testContext).then(
    () => 'pass' as const,
    () => 'fail' as const,
  );
  return { ...testContext.task.meta.contract!, title, file: 'a.check.ts', outcome, durationMs: 1 };
}

it('lists every resource a cleanup could not remove, with its answer, in the JSON, Markdown and HTML', async () => {
  const checks = [
    await making('a passing check', KEPT.passed, false),
    await making('a failing check', KEPT.failed, true),
  ];
  expect(checks.map((c) => c.outcome)).toEqual(['pass', 'fail']);
  const report = buildReport(
    checks,
    sharedContract(),
    { baseUrl: 'http://t', profile: 'staging', capabilities: [] },
    { startedAt: '', finishedAt: '' },
  );
  const answer = 'DELETE answered 429: left for --cleanup-only';
  expect(report.leftOnTarget).toEqual([
    { kind: 'image', id: KEPT.passed, owner: 'main', answer, check: 'a passing check' },
    { kind: 'image', id: KEPT.failed, owner: 'main', answer, check: 'a failing check' },
  ]);
  expect(renderMarkdown(report)).toContain('## Left on the target\n\nEach resource');
  expect(renderMarkdown(report)).toContain(
    `| image \`${KEPT.passed}\` | main | a passing check | ${answer} |`,
  );
  expect(renderHtml(report)).toContain(
    `<tr><td>image <code>${KEPT.passed}</code></td><td>main</td><td>a passing check</td><td>${answer}</td></tr>`,
  );
});

it('says nothing was left when every cleanup removed what its check made', () => {
  const report = buildReport(
    [],
    sharedContract(),
    { baseUrl: 'http://t', profile: 'staging', capabilities: [] },
    { startedAt: '', finishedAt: '' },
  );
  expect(report.leftOnTarget).toEqual([]);
  expect(renderMarkdown(report)).toContain(
    '## Left on the target\n\nNothing: every cleanup removed what its check made.',
  );
  expect(renderHtml(report)).toContain(
    '<h2>Left on the target</h2><p>Nothing: every cleanup removed what its check made.</p>',
  );
});
