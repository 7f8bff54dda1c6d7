/**
 * `npm run contract -- --against-prism-mock`: Prism's spec-only mock of our own document answers
 * every operation from its examples and remembers nothing, so most clauses fail. A CI job reading
 * that run must see why at once: no failure is an exception inside the harness or a bare boolean,
 * a check whose step failed says which step blocked it, and the report lists root causes first.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from './report/conformance-model.js';

const REPO = path.resolve(import.meta.dirname, '..');
/** What the harness throws when it reads an answer it never checked. */
const HARNESS_EXCEPTION =
  /Cannot read propert|is not a function|is not iterable|(Type|Reference|Range)Error|Unexpected token|undefined \(reading/;
/** A comparison with no word of what was compared: the whole message, or a clause's, is "expected false to be true". */
const BARE =
  /^(?:[A-Z]+-\d+: )?expected (?:true|false|null|undefined|'?\w*'?) (?:not )?to (?:be|equal) (?:true|false|null|undefined)\b/;

let dir: string;
let report: ConformanceReport;
let markdown: string;
let code: number | null;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'prism-mock-run-'));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('CONTRACT_')),
  );
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'contract-tests/cli.ts', '--against-prism-mock', '--report-dir', dir],
    { cwd: REPO, env: { ...env, NO_COLOR: '1' }, stdio: 'ignore' },
  );
  code = await new Promise((resolve) => child.on('close', resolve));
  report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
  markdown = readFileSync(path.join(dir, 'conformance.md'), 'utf8');
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failures = () => report.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'blocked');

describe("the suite against Prism's spec-only mock", () => {
  it('fails, as a mock that remembers nothing must', () => {
    expect(code).toBe(1);
    expect(report.totals.clauses.fail).toBeGreaterThan(20);
  });

  it('ends no failure in an exception inside the harness', () => {
    const thrown = failures().filter((c) => HARNESS_EXCEPTION.test(c.error ?? ''));
    expect(thrown.map((c) => `${c.title}: ${c.error}`)).toEqual([]);
  });

  it('ends no failure in a bare boolean: every message says what it compared', () => {
    const lines = failures().flatMap((c) =>
      (c.error ?? '').split('\n').map((line) => ({ check: c.title, line: line.replace(/^- /, '').trim() })),
    );
    expect(lines.filter(({ line }) => BARE.test(line))).toEqual([]);
  });

  it('reports a check behind a failed step as blocked by that step, named with its status', () => {
    const blocked = report.checks.filter((c) => c.outcome === 'blocked');
    expect(blocked.length).toBeGreaterThan(0);
    for (const check of blocked) {
      expect(check.blockedBy?.text, check.title).toMatch(
        /^[A-Z]+ \/\S* (\(\w+\) )?(answered \d{3}|ended \w+)/,
      );
      expect(check.error, check.title).toContain(`blocked by step: ${check.blockedBy!.text}`);
    }
    const blockedClauses = report.clauses.filter((c) => c.outcome === 'blocked');
    expect(blockedClauses.length).toBeGreaterThan(0);
    for (const clause of blockedClauses)
      expect(
        clause.checks.filter((k) => k.outcome === 'blocked').map((k) => k.blockedBy?.text),
        clause.id,
      ).not.toContain(undefined);
  });

  it('names each blocking step once, with a reproducer, and the clauses it blocks', () => {
    const blocking = report.rootCauses.filter((c) => c.blocks.length);
    expect(new Set(blocking.map((c) => c.text)).size).toBe(blocking.length);
    for (const cause of blocking) {
      expect(cause.reproducer, cause.text).toBeDefined();
      expect(existsSync(path.join(dir, cause.reproducer!)), cause.reproducer).toBe(true);
    }
    const blockedInReport = new Set(blocking.flatMap((c) => c.blocks.flatMap((b) => b.clauses)));
    for (const clause of report.clauses.filter((c) => c.outcome === 'blocked'))
      expect([...blockedInReport], clause.id).toContain(clause.id);
  });

  it('lists root causes first: before the clause tables, the one blocking most clauses at the top', () => {
    const rootCauses = markdown.indexOf('## Root causes, first');
    expect(rootCauses).toBeGreaterThan(0);
    expect(rootCauses).toBeLessThan(markdown.indexOf('## Stated by the interface'));
    const blocks = report.rootCauses.map((c) => new Set(c.blocks.flatMap((b) => b.clauses)).size);
    expect(blocks).toEqual([...blocks].sort((a, b) => b - a));
    expect(markdown.slice(rootCauses)).toMatch(
      new RegExp(`^## Root causes, first\\n\\n1\\. \\*\\*${escape(report.rootCauses[0].text)}`),
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
