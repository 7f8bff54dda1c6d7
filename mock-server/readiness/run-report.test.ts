import { describe, expect, it } from 'vitest';
import { judgedNothing, type ReadinessReport } from './readiness-run.js';
import { runReportMarkdown } from './run-report.js';

describe('the Markdown report', () => {
  it("keeps the client's output inside its code block, whatever backticks the output holds", () => {
    const lastLines = ['```', '<img src=x onerror=alert(1)>', '`````'];
    const md = runReportMarkdown({
      command: ['npm test'],
      startedAt: '2026-11-29T00:00:00.000Z',
      durationMs: 1,
      caseTimeoutMs: 1000,
      baseline: {
        ...{ passed: false, exitCode: 1, signal: null, timedOut: false, durationMs: 1, lastLines },
        ...{ journal: [], operations: [] },
      },
      cases: [],
    });
    expect(md).toContain(['``````', ...lastLines, '``````'].join('\n'));
  });
});

describe('a run that judged nothing', () => {
  const report = (...verdicts: Array<'survived' | 'failed' | 'never reached' | 'does not apply'>) =>
    ({
      baseline: { passed: true },
      cases: verdicts.map((verdict, i) => ({ id: `case-${i}`, verdict })),
    }) as unknown as ReadinessReport;

  it('is one whose cases were each never reached or did not apply', () => {
    expect(judgedNothing(report('does not apply', 'does not apply'))).toBe(true);
    expect(judgedNothing(report('never reached', 'does not apply'))).toBe(true);
  });

  it('is not one where a case met what was armed, survived or failed', () => {
    expect(judgedNothing(report('never reached', 'survived'))).toBe(false);
    expect(judgedNothing(report('does not apply', 'failed'))).toBe(false);
  });
});
