import { describe, expect, it } from 'vitest';
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
