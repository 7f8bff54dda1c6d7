import { describe, expect, it } from 'vitest';
import { CLAUSES } from '../clauses.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { buildReport, type CheckResult } from './conformance-model.js';
import { renderHtml } from './render-html.js';
import { renderMarkdown } from './render-markdown.js';

const advisory = CLAUSES.find((c) => c.kind === 'advisory')!;

/** One passing check whose advisory clause it judged at risk, as check.ts records it. */
const atRisk: CheckResult = {
  title: 'names come back safe',
  file: 'safe-to-open.check.ts',
  clauses: [advisory.id],
  outcome: 'pass',
  durationMs: 1,
  calls: [],
  clauseOutcomes: { [advisory.id]: { outcome: 'fail', error: `${advisory.id}: a cell would run` } },
};

describe('an advisory clause', () => {
  const report = buildReport(
    [atRisk],
    sharedContract(),
    { baseUrl: 'http://t', profile: 'mock', capabilities: [] },
    {
      startedAt: '',
      finishedAt: '',
    },
  );

  it('is counted apart: at risk is not a failed promise of the interface', () => {
    expect(report.clauses.find((c) => c.id === advisory.id)?.outcome).toBe('fail');
    expect(report.totals.advisories.fail).toBe(1);
    expect(report.totals.clauses.fail).toBe(0);
  });

  it('reads "at risk" in both reports, in a section of its own', () => {
    const markdown = renderMarkdown(report);
    expect(markdown).toContain('Advisories (never fail the run): 0 safe, 1 at risk');
    expect(markdown).toMatch(
      new RegExp(`## Advisory[^\\n]*\\n[\\s\\S]*\\| ${advisory.id} \\| [^|]+ \\| \\*\\*at risk\\*\\*`),
    );
    expect(renderHtml(report)).toMatch(
      new RegExp(`<td>${advisory.id}</td><td>[^<]+</td><td class="result">at risk</td>`),
    );
  });
});

describe("an advisory clause whose check's cleanup met a server error", () => {
  const judgedSafe: CheckResult = {
    ...atRisk,
    outcome: 'fail',
    error:
      'the check passed, but its cleanup got server errors or met what it must not delete:\n- getShare: 500',
    clauseOutcomes: { [advisory.id]: { outcome: 'pass' } },
  };
  const report = buildReport(
    [judgedSafe],
    sharedContract(),
    { baseUrl: 'http://t', profile: 'staging', capabilities: [] },
    { startedAt: '', finishedAt: '' },
  );

  it('reads what its check judged, "safe", with the cleanup failure beside it', () => {
    expect(report.clauses.find((c) => c.id === advisory.id)?.outcome).toBe('pass');
    expect(report.totals.advisories).toMatchObject({ pass: 1, fail: 0 });
    expect(renderMarkdown(report)).toMatch(
      new RegExp(
        `\\| ${advisory.id} \\| [^|]+ \\| safe \\| [^|]+ \\| names come back safe: the check passed, but its cleanup got server errors`,
      ),
    );
    expect(renderHtml(report)).toMatch(
      new RegExp(
        `<td>${advisory.id}</td><td>[^<]+</td><td class="result">safe</td><td>[^<]+</td><td><div>names come back safe: the check passed, but its cleanup`,
      ),
    );
  });

  it('is not listed as failed by the root cause: the check is, with no clause of its own', () => {
    expect(report.rootCauses.map((c) => c.fails)).toEqual([[{ check: judgedSafe.title, clauses: [] }]]);
  });
});
