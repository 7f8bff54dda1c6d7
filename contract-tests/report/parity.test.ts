import { describe, expect, it } from 'vitest';
import type { ConformanceReport } from './conformance-model.js';
import { compareReports, renderParityMarkdown } from './parity.js';

function report(
  baseUrl: string,
  clauses: Array<[string, 'pass' | 'fail' | 'skipped', string?]>,
  seen: Record<string, Record<string, number>>,
): ConformanceReport {
  return {
    target: { baseUrl, profile: 'mock', capabilities: [] },
    startedAt: '',
    finishedAt: '',
    totals: {
      checks: { pass: 0, fail: 0, blocked: 0, skipped: 0 },
      clauses: { pass: 0, fail: 0, blocked: 0, skipped: 0, 'not-run': 0 },
      advisories: { pass: 0, fail: 0, blocked: 0, skipped: 0, 'not-run': 0 },
    },
    rootCauses: [],
    leftOnTarget: [],
    traceGaps: { sentencesWithoutClause: [], clausesNeverBroken: [], measured: false },
    clauses: clauses.map(([id, outcome, error]) => ({
      id,
      area: 'x',
      kind: 'stated',
      summary: `${id} summary`,
      outcome,
      checks: [
        {
          title: 't',
          outcome,
          error,
          reproducer: error ? `reproducers/${id.toLowerCase()}-t.sh` : undefined,
        },
      ],
    })),
    operations: Object.entries(seen)
      .filter(([op]) => !op.includes(' '))
      .map(([operationId, s]) => ({
        operationId,
        method: 'GET',
        path: '/',
        documented: [],
        seen: s,
        undocumented: [],
      })),
    otherRequests: Object.entries(seen)
      .filter(([op]) => op.includes(' '))
      .map(([label, s]) => ({ label, seen: s })),
    checks: [],
  };
}

describe('the parity report', () => {
  const a = report(
    'http://a',
    [
      ['UP-01', 'pass'],
      ['UP-04', 'pass'],
    ],
    { completeUpload: { 202: 3 }, getUpload: { 200: 5 }, 'presigned part PUT': { 200: 2 } },
  );
  const b = report(
    'http://b',
    [
      ['UP-01', 'pass'],
      ['UP-04', 'fail', 'expected 200 to be 202\nstack'],
    ],
    { completeUpload: { 200: 3 }, getUpload: { 200: 9 }, 'presigned part PUT': { 200: 2, 403: 1 } },
  );
  const parity = compareReports(a, b);

  it('sets clauses side by side, with the reason of the side that failed', () => {
    expect(parity.clauses.agree).toBe(1);
    expect(parity.clauses.differ).toBe(1);
    expect(parity.clauses.rows.find((r) => r.id === 'UP-04')).toMatchObject({
      a: 'pass',
      b: 'fail',
      agree: false,
      bError: 'expected 200 to be 202',
      bReproducer: 'b/reproducers/up-04-t.sh',
    });
  });

  it('compares the statuses each operation answered, requests outside the document included', () => {
    const rows = Object.fromEntries(parity.operations.rows.map((r) => [r.operation, r.agree]));
    expect(rows).toEqual({ completeUpload: false, getUpload: true, 'presigned part PUT': false });
  });

  it('renders what differs first', () => {
    const markdown = renderParityMarkdown(parity);
    expect(markdown).toContain('Clauses: 1 agree, 1 differ.');
    expect(markdown).toMatch(
      /\| UP-04 \| stated \| pass \| fail \|.*B: expected 200 to be 202 \(\[reproducer\]\(b\/reproducers\/up-04-t\.sh\)\) \|/,
    );
    expect(markdown).toContain('| completeUpload | 202 x3 | 200 x3 | **no** |');
  });
});
