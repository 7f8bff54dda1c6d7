import { describe, expect, it } from 'vitest';
import { mergeSections, parseCommittedSections } from './committed-table.js';
import { renderReadmeSection } from './readme.js';
import type { BenchReport, Row, SectionRecord } from './report.js';

const machine: BenchReport['machine'] = {
  node: 'v22',
  cpus: 2,
  cpuModel: 'test',
  memoryGB: 8,
  loadavg: [1, 1, 1],
};

function record(measuredAt: string, rows: Row[], extra: Partial<SectionRecord> = {}): SectionRecord {
  return { measuredAt, seconds: 60, rows, data: {}, ...extra };
}

const row = (section: string, metric: string, ok: boolean | null, extra: Partial<Row> = {}): Row => ({
  section,
  metric,
  ours: '12 req/s (p50 | p99)',
  peer: 'bare 20 req/s',
  ratio: '0.60x',
  target: ok === null ? 'none' : '>= 0.5x',
  ok,
  ...extra,
});

const tableLines = (text: string) => text.split('\n').filter((l) => l.startsWith('| '));

const shown: BenchReport = {
  quick: false,
  machine,
  sections: {
    http: record('2026-11-25T17:07:00.000Z', [
      row('HTTP', 'GET /models', true),
      row('HTTP', 'GET /upload/{id}', false, { why: 'the key lookup, 10% of a request' }),
    ]),
    limits: record('2026-11-25T17:14:00.000Z', [], { error: 'Error: fetch failed\n  at x' }),
    segmentation: record('2026-11-25T17:15:00.000Z', [], { skipped: 'OpenCV is not installed' }),
    load: record('2026-11-25T17:00:00.000Z', [row('Load', 'loops', null)], {
      data: { clients: 200, iterations: 460, wall: 20, solo: { iterations: 50, wall: 20 } },
    }),
    'sandbox-cost': record('2026-11-25T17:20:00.000Z', [row('Sandbox cost', 'CPU per read', true)]),
  },
};

describe('parseCommittedSections', () => {
  it('reads back what the page shows: the same table renders again, row for row', () => {
    const page = `# Benchmarks\n\nprose\n\n${renderReadmeSection(shown)}\n`;
    const again = renderReadmeSection({ quick: false, machine, sections: parseCommittedSections(page) });
    expect(tableLines(again)).toEqual(tableLines(renderReadmeSection(shown)));
    expect(again).toContain('the key lookup, 10% of a request');
    expect(again).toContain('- **Uploads per second.** 200 clients');
    expect(again).toContain('(all sections, about 5 minutes here)');
    expect(again).toMatch(/Measured: http 2026-11-25 17:07 UTC; load 2026-11-25 17:00 UTC/);
  });

  it('reads when a section with a hyphen in its name was measured', () => {
    const parsed = parseCommittedSections(renderReadmeSection(shown));
    expect(parsed['sandbox-cost'].measuredAt).toBe('2026-11-25T17:20:00.000Z');
  });

  it('finds nothing on a page without the bench markers', () => {
    expect(parseCommittedSections('# Benchmarks\n\nno table yet\n')).toEqual({});
  });
});

describe('mergeSections', () => {
  it('keeps every section a partial run did not measure, and the newer record of each', () => {
    const committed = parseCommittedSections(renderReadmeSection(shown));
    const thisRun = { limits: record('2026-11-25T20:00:00.000Z', [row('Limits', '4096x4096', null)]) };
    const merged = mergeSections(committed, undefined, thisRun);
    expect(Object.keys(merged).sort()).toEqual(['http', 'limits', 'load', 'sandbox-cost', 'segmentation']);
    expect(merged.limits.rows[0].metric).toBe('4096x4096');
    const older = { http: record('2026-11-20T10:00:00.000Z', [row('HTTP', 'stale', true)]) };
    expect(mergeSections(committed, older).http.rows[0].metric).toBe('GET /models');
  });
});
