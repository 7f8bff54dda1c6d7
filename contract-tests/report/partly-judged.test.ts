import { describe, expect, it } from 'vitest';
import { CLAUSES } from '../clauses.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { buildReport, type CheckResult } from './conformance-model.js';
import { renderHtml } from './render-html.js';
import { renderMarkdown } from './render-markdown.js';

const clause = CLAUSES.find((c) => c.kind === 'stated')!;
const ran = (title: string, outcome: CheckResult['outcome'], skipReason?: string): CheckResult => ({
  title,
  file: 'a.check.ts',
  clauses: [clause.id],
  outcome,
  durationMs: 1,
  calls: [],
  skipReason,
});

describe('a clause passed by only some of its checks', () => {
  const report = buildReport(
    [ran('the one that ran', 'pass'), ran('the one that did not', 'skipped', 'needs control')],
    sharedContract(),
    { baseUrl: 'http://t', profile: 'staging', capabilities: [] },
    { startedAt: '', finishedAt: '' },
  );

  it('says in its result how many of its checks ran, in both reports', () => {
    expect(report.clauses.find((c) => c.id === clause.id)?.outcome).toBe('pass');
    expect(renderMarkdown(report)).toContain(`| ${clause.id} | ${clause.area} | pass (1 of 2 checks ran) |`);
    expect(renderHtml(report)).toContain(`<td class="result">pass (1 of 2 checks ran)</td>`);
  });
});
