import { describe, expect, it } from 'vitest';
import { NO_DIAGNOSIS } from './miss-causes.js';
import { renderReadmeSection, SECTION_TITLES } from './readme.js';
import type { BenchReport, Row, SectionRecord } from './report.js';

const machine: BenchReport['machine'] = {
  node: 'v22',
  cpus: 2,
  cpuModel: 'test',
  memoryGB: 8,
  loadavg: [1, 1, 1],
};

function record(rows: Row[], extra: Partial<SectionRecord> = {}): SectionRecord {
  return { measuredAt: '2026-11-25T12:00:00.000Z', seconds: 60, rows, data: {}, ...extra };
}

function row(section: string, metric: string, ok: boolean | null, target = 'a target'): Row {
  return { section, metric, ours: '1', peer: '2', ratio: '0.5x', target, ok };
}

const tableLines = (text: string) =>
  text.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| section'));

describe('renderReadmeSection', () => {
  it('gives every section a row, saying of one never measured that it was not', () => {
    const text = renderReadmeSection({
      quick: false,
      machine,
      sections: { http: record([row('HTTP', 'GET /models', true)]) },
    });
    const lines = tableLines(text);
    for (const title of Object.values(SECTION_TITLES))
      expect(lines.some((l) => l.startsWith(`| ${title} |`))).toBe(true);
    expect(lines.find((l) => l.startsWith('| Load |'))).toMatch(/not measured.*--only load/);
  });

  it('shows a missed row as missed and says why, a diagnosis or that there is none yet', () => {
    const text = renderReadmeSection({
      quick: false,
      machine,
      sections: {
        http: record([row('HTTP', 'GET /models overhead', false, 'overhead < 30%')]),
        load: record([row('Load', 'lost images', false, 'none lost')]),
        uploads: record([{ ...row('Uploads', '1 GB', false), why: 'the disk was full' }]),
      },
    });
    expect(tableLines(text).filter((l) => l.endsWith('| **no** |'))).toHaveLength(3);
    const misses = text.slice(text.indexOf('## What misses its target, and why'));
    expect(misses).toMatch(/HTTP overhead over bare express/);
    expect(misses).toContain(`**Load: lost images** (target none lost): ${NO_DIAGNOSIS}`);
    expect(misses).toContain('**Uploads: 1 GB** (target a target): the disk was full');
  });

  it('shows a section that failed as a miss, with its error', () => {
    const text = renderReadmeSection({
      quick: false,
      machine,
      sections: { exports: record([], { error: 'Error: nginx could not start\n    at x' }) },
    });
    expect(tableLines(text).find((l) => l.startsWith('| Exports |'))).toMatch(
      /failed in this run: nginx could not start.*\*\*no\*\* \|$/,
    );
    expect(text).toContain('**Exports failed in this run.** nginx could not start');
  });

  it('says why a section that ran measured nothing', () => {
    const text = renderReadmeSection({
      quick: false,
      machine,
      sections: { segmentation: record([], { skipped: 'bench/segmentation/run.ts does not exist' }) },
    });
    expect(tableLines(text).find((l) => l.startsWith('| Segmentation |'))).toMatch(
      /skipped: bench\/segmentation\/run.ts does not exist/,
    );
  });

  it('says first when the run shared an oversubscribed machine', () => {
    const sections = { http: record([row('HTTP', 'GET /models', false, 'p99 < 50 ms')]) };
    const busy = renderReadmeSection({
      quick: false,
      machine: { ...machine, loadavg: [46, 40, 30] },
      sections,
    });
    expect(busy).toMatch(/load average 46 on 2 cores when it started/);
    expect(renderReadmeSection({ quick: false, machine, sections })).not.toMatch(/shared the machine/);
  });
});
