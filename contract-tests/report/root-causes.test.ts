import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type TestContext } from 'vitest';
import { runCheck, type CheckContext } from '../harness/check.js';
import { CLAUSES } from '../clauses.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { buildReport, type CheckResult } from './conformance-model.js';
import { renderHtml } from './render-html.js';
import { renderMarkdown } from './render-markdown.js';

const clause = CLAUSES.find((c) => c.kind === 'stated')!;
const report = (checks: CheckResult[]) =>
  buildReport(
    checks,
    sharedContract(),
    { baseUrl: 'http://t', profile: 'staging', capabilities: [] },
    { startedAt: '', finishedAt: '' },
  );

/** A check that passed but whose cleanup met a server error: no step explains it, its message does. */
const cleanupFailed: CheckResult = {
  title: 'a check whose cleanup failed',
  file: 'a.check.ts',
  clauses: [clause.id],
  outcome: 'fail',
  durationMs: 1,
  calls: [],
  error:
    'the check passed, but its cleanup got server errors or met what it must not delete:\n- getShare: server error 500: {"detail":"<b>busy</b>"}\n- left on the target: share 1: read 500',
};

describe('a root cause no step explains', () => {
  const built = report([cleanupFailed]);

  it('carries its whole message, every line, in the JSON', () => {
    expect(built.rootCauses.map((c) => c.text)).toEqual([cleanupFailed.error]);
  });

  it('shows every line in the Markdown and the HTML, escaped there', () => {
    const markdown = renderMarkdown(built);
    expect(markdown).toContain(
      '1. **the check passed, but its cleanup got server errors or met what it must not delete:**',
    );
    expect(markdown).toContain(
      '   ```\n   - getShare: server error 500: {"detail":"<b>busy</b>"}\n   - left on the target: share 1: read 500\n   ```',
    );
    expect(renderHtml(built)).toContain(
      '<li><strong>the check passed, but its cleanup got server errors or met what it must not delete:</strong><pre>- getShare: server error 500: {&quot;detail&quot;:&quot;&lt;b&gt;busy&lt;/b&gt;&quot;}\n- left on the target: share 1: read 500</pre>',
    );
  });
});

describe('a step that failed one check and blocked another', () => {
  const step = {
    key: 'getShare answered 500',
    text: 'GET /api/v1/shares/{share_id} (getShare) answered 500',
  };
  const built = report([
    { ...cleanupFailed, failedStep: step, reproducer: 'reproducers/auth-01-a-check.sh' },
    {
      ...cleanupFailed,
      title: 'a blocked check',
      outcome: 'blocked',
      blockedBy: step,
      reproducer: 'reproducers/step-getshare-answered-500.sh',
    },
  ]);

  it("is one root cause, with the step's own reproducer whichever check came first", () => {
    expect(built.rootCauses).toEqual([
      {
        text: step.text,
        reproducer: 'reproducers/step-getshare-answered-500.sh',
        fails: [{ check: cleanupFailed.title, clauses: [clause.id] }],
        blocks: [{ check: 'a blocked check', clauses: [clause.id] }],
      },
    ]);
  });
});

describe("a root cause whose message holds a Markdown fence (the target's answer, quoted)", () => {
  it('stays inside its block: the fence around it is longer than any run of backticks in it', () => {
    const fenced = {
      ...cleanupFailed,
      error: 'the check passed, but:\n- getShare: 500: ```\n# not a heading',
    };
    const markdown = renderMarkdown(report([fenced]));
    expect(markdown).toContain('   ````\n   - getShare: 500: ```\n   # not a heading\n   ````');
  });
});

/**
 * Checks failed only by a server error of one operation, met against a target whose 500 says one
 * thing for one share and another for the other: each different 500 is a root cause of its own,
 * the same one met by two checks one.
 */
describe('server errors of one operation', () => {
  const SAID = { one: '{"detail":"Injected fault: 500"}', other: '{"detail":"database locked"}' };
  const SHARES = {
    one: '0b8e5c1a-4d2f-4e6a-9c3b-7a1d2e3f4a5b',
    other: '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
  };
  let server: http.Server;
  beforeAll(async () => {
    server = http.createServer((req, res) =>
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(req.url?.includes(SHARES.other) ? SAID.other : SAID.one),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    vi.stubEnv('CONTRACT_BASE_URL', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    vi.stubEnv('CONTRACT_API_KEY', 'sk_test_main');
    vi.stubEnv('CONTRACT_PROFILE', 'mock');
    vi.stubEnv('CONTRACT_REPORT_DIR', mkdtempSync(path.join(os.tmpdir(), 'root-causes-')));
  });
  afterAll(async () => {
    rmSync(process.env.CONTRACT_REPORT_DIR!, { recursive: true, force: true });
    vi.unstubAllEnvs();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A check that reads one share, as the report sees it once it failed. */
  async function readingShare(title: string, share: keyof typeof SHARES): Promise<CheckResult> {
    const testContext = { task: { meta: {} }, skip: () => {} } as unknown as TestContext;
    const read = async (ctx: CheckContext) =>
      void (await ctx.api.call('getShare', { params: { share_id: SHARES[share] } }));
    const error = await runCheck(title, { clauses: [clause.id] }, read, testContext).then(
      () => undefined,
      (err: Error) => err.message,
    );
    const meta = testContext.task.meta.contract!;
    return { ...meta, title, file: 'a.check.ts', outcome: 'fail', durationMs: 1, error };
  }

  it('are two root causes when they say different things, one when they say the same', async () => {
    const checks = [
      await readingShare('first', 'one'),
      await readingShare('again', 'one'),
      await readingShare('other', 'other'),
    ];
    const text = 'GET /api/v1/shares/{share_id} (getShare) answered 500';
    expect(report(checks).rootCauses.map((c) => [c.text, c.fails.map((f) => f.check)])).toEqual([
      [`${text}: ${SAID.one}`, ['first', 'again']],
      [`${text}: ${SAID.other}`, ['other']],
    ]);
  });
});

it('keeps one 500 that names each request its own id as one root cause', () => {
  const step = {
    key: 'getShare answered 500',
    text: 'GET /api/v1/shares/{share_id} (getShare) answered 500',
  };
  const failedBy = (title: string, said: string): CheckResult => ({
    ...cleanupFailed,
    title,
    failedStep: { ...step, said },
  });
  const causes = report([
    failedBy(
      'one',
      '{"detail":"internal error","request_id":"3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11","at":1764450000}',
    ),
    failedBy(
      'two',
      '{"detail":"internal error","request_id":"0b8e5c1a-4d2f-4e6a-9c3b-7a1d2e3f4a5b","at":1764450007}',
    ),
  ]).rootCauses;
  expect(causes.map((c) => c.fails.map((f) => f.check))).toEqual([['one', 'two']]);
});
