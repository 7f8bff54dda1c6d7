import { describe, expect, it } from 'vitest';
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
