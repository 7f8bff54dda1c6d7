/**
 * The figures docs/benchmarks.md already shows, read back from its table, so that a partial run
 * (`--only X`) in a checkout without reports/bench.json (it is not tracked) rewrites the sections
 * it measured and keeps every other one as committed, instead of printing them as never measured.
 */
import { END, LIMIT_HEADINGS, SECTION_TITLES, START } from './readme.js';
import type { BenchReport, Row, SectionRecord } from './report.js';

const NAME_OF_TITLE = new Map(Object.entries(SECTION_TITLES).map(([name, title]) => [title, name]));

/** A table line's cells; `\|` inside a cell is a literal bar (see `cell` in readme.ts). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

function met(text: string): boolean | null {
  if (text === '') return null;
  return /yes/i.test(text) ? true : false;
}

/** When each section was measured, from the "Measured: start 2026-11-25 17:17 UTC; ..." line. */
function measuredAt(lines: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const line = lines.find((l) => l.startsWith('Measured: '));
  if (!line) return out;
  for (const m of line.matchAll(/(?:^Measured: |; )([a-z-]+) (\d{4}-\d\d-\d\d) (\d\d:\d\d) UTC/g))
    out.set(m[1], `${m[2]}T${m[3]}:00.000Z`);
  return out;
}

/** "- **Title: metric** (target T): why" lines of the misses paragraph, by title and metric. */
function whys(lines: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of lines) {
    const m = /^- \*\*(.+?): (.+)\*\* \(target .*?\): (.+)$/.exec(l);
    if (m && !m[3].startsWith('not diagnosed yet')) out.set(`${m[1]}\n${m[2]}`, m[3]);
  }
  return out;
}

/** The Limits paragraph's bullets, by the section whose figures they come from. */
function limitNotes(lines: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const l of lines) {
    const entry = Object.entries(LIMIT_HEADINGS).find(([, heading]) => l.startsWith(`- **${heading}`));
    if (entry) out.set(entry[0], [...(out.get(entry[0]) ?? []), l]);
  }
  return out;
}

/** Every section the committed table shows figures for (or a failure or skip), as records. */
export function parseCommittedSections(markdown: string): Record<string, SectionRecord> {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) return {};
  const lines = markdown.slice(start + START.length, end).split('\n');
  const when = measuredAt(lines);
  const why = whys(lines);
  const notes = limitNotes(lines);
  const sections: Record<string, SectionRecord> = {};
  for (const line of lines.filter((l) => l.startsWith('| ') && !l.startsWith('| section'))) {
    const [title, metric, ours, peer, ratio, target, ok] = cells(line);
    const name = NAME_OF_TITLE.get(title);
    if (!name || metric.startsWith('not measured:')) continue;
    const record = (sections[name] ??= {
      measuredAt: when.get(name) ?? '',
      seconds: 0,
      rows: [],
      data: {},
      committed: true,
      ...(notes.has(name) ? { limitNotes: notes.get(name) } : {}),
    });
    if (metric.startsWith('failed in this run: ') && ours === '')
      record.error = metric.slice('failed in this run: '.length);
    else if (metric.startsWith('skipped: ') && ours === '') record.skipped = metric.slice('skipped: '.length);
    else {
      const row: Row = { section: title, metric, ours, peer, ratio, target, ok: met(ok ?? '') };
      const because = why.get(`${title}\n${metric}`);
      record.rows.push(because ? { ...row, why: because } : row);
    }
  }
  // The page says how long the whole run took; its sections share it, so that a partial run
  // replacing some of them still states about the length of a full one.
  const minutes = /about (\d+) minutes here/.exec(lines.join('\n'));
  const records = Object.values(sections);
  for (const r of records) r.seconds = minutes ? (Number(minutes[1]) * 60) / records.length : 0;
  return sections;
}

/**
 * The sections of a run's report merged with those on record: for each section the newer record
 * wins, so a section measured now replaces what was shown and every other one stays.
 */
export function mergeSections(
  ...sources: Array<Record<string, SectionRecord> | undefined>
): BenchReport['sections'] {
  const out: BenchReport['sections'] = {};
  for (const source of sources)
    for (const [name, record] of Object.entries(source ?? {}))
      if (!out[name] || record.measuredAt >= out[name].measuredAt) out[name] = record;
  return out;
}
