/**
 * `npm run mutate -- [--workers N] [--sample N] [--seed S] [--only PREFIX] [--ids FILE] [--report-dir DIR]`:
 * the contract suite's power, measured. Starts a healthy mock, watches which answers each check
 * file receives, then runs the checks once per mutant (test-support/mutation/mutants.ts) through
 * the sabotage proxy, and prints the kill rate per operation and per clause and every survivor.
 * --ids runs the mutants listed in FILE, one id a line (an earlier run's survivors, say). Each
 * verdict is also appended to <report-dir>/mutation-verdicts.jsonl as it comes, so a run stopped
 * early keeps what it measured.
 * A complete run (no --sample, --only, --ids) also writes contract-tests/trace/mutation-record.json
 * and docs/interface-trace.md; every run ends with the interface trace's gaps.
 * Workers default to the cores (at least 2: a check file mostly waits on the mock). The report goes to <report-dir>/mutation.{md,json} (default reports/). Exit code 1 when the
 * score is under --threshold (default 0).
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { mockKeys } from '../../contract-tests/harness/target.js';
import { gapLines, traceGaps } from '../../contract-tests/trace/gaps.js';
import { readRecord, writeRecord } from '../../contract-tests/trace/mutation-record.js';
import { commandLine, usageError } from '../command-line.js';
import { launchSabotageTarget } from '../launched-mock.js';
import { allMutants, sampleMutants } from './mutants.js';
import { observe, runMutants } from './mutation-run.js';
import { progressLine, renderScore, scoreOf } from './score.js';
import { renderTraceTable, TRACE_TABLE } from './trace-table.js';

const USAGE = `usage: npm run mutate -- [--workers N] [--sample N] [--seed S] [--only PREFIX] [--ids FILE] [--threshold R] [--report-dir DIR]

The contract suite's power: its checks run once per mutant of the mock (test-support/mutation/mutants.ts)
through the sabotage proxy; prints the kill rate per operation and per clause and every survivor.

  --workers N        check files run at a time (default: the cores, at least 2)
  --sample N         N mutants drawn at random (with --seed) instead of all of them
  --seed S           the seed of --sample's draw (default 30)
  --only PREFIX      only the mutants whose id starts with PREFIX
  --ids FILE         only the mutants listed in FILE, one id a line (an earlier run's survivors, say)
  --threshold R      exit 1 when the kill rate is under R, a fraction (default 0)
  --report-dir DIR   where mutation.{md,json} and mutation-verdicts.jsonl go (default reports/)
  --help, -h         this text

A complete run (no --sample, --only, --ids) also rewrites contract-tests/trace/mutation-record.json
and docs/interface-trace.md.`;

const TOOL = 'mutate';
const { values } = commandLine(TOOL, USAGE, {
  options: {
    workers: { type: 'string', default: String(Math.max(2, os.availableParallelism())) },
    sample: { type: 'string' },
    seed: { type: 'string', default: '30' },
    only: { type: 'string' },
    ids: { type: 'string' },
    threshold: { type: 'string', default: '0' },
    'report-dir': { type: 'string', default: process.env.CONTRACT_REPORT_DIR || 'reports' },
  },
});
const number = (name: keyof typeof values, value: string | undefined): number => {
  const n = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(n) || n < 0)
    usageError(TOOL, `--${name} must be a number, not '${value}'`);
  return n;
};
const workers = Math.max(1, number('workers', values.workers));
// Read before a mock starts: a run that would fail at its end on this fails now instead.
const threshold = number('threshold', values.threshold);
const listed = values.ids === undefined ? undefined : new Set(listedIds(values.ids));

/** The mutant ids in `file`, one a line; a file that cannot be read is a usage error. */
function listedIds(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    usageError(TOOL, `--ids: cannot read '${file}' (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}
let mutants = allMutants().filter(
  (m) => (!values.only || m.id.startsWith(values.only)) && (!listed || listed.has(m.id)),
);
if (values.sample !== undefined)
  mutants = sampleMutants(mutants, number('sample', values.sample), number('seed', values.seed));
if (!mutants.length)
  usageError(TOOL, `no mutant matches --only '${values.only ?? ''}' and --ids '${values.ids ?? ''}'`);

const started = Date.now();
// the code measured is the commit checked out when the run starts (one may be made while it runs)
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const dir = path.resolve(values['report-dir']);
mkdirSync(dir, { recursive: true });
const running = path.join(dir, 'mutation-verdicts.jsonl');
writeFileSync(running, '');
const mock = launchSabotageTarget();
const { main, other = '', tiny = '' } = mockKeys();
const keys = { main, other, tiny };
// Ctrl-C takes the mock with it (it runs in a process group of its own)
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    mock.kill();
    process.exit(130);
  });
try {
  const url = await mock.url;
  console.log(`mutate: ${mutants.length} mutants, ${workers} workers, against a mock at ${url}`);
  const watching = Date.now();
  const observation = await observe(url, keys, workers);
  const durations = Object.entries(observation.durations).map(
    ([f, ms]) => `${f} ${(ms / 1000).toFixed(1)} s`,
  );
  console.log(
    `mutate: every check file once against the healthy mock, watched, in ${((Date.now() - watching) / 1000).toFixed(0)} s (${durations.join(', ')})`,
  );
  for (const [file, errors] of observation.failing)
    console.log(`mutate: ${file} fails against the healthy mock, so judges no mutant:\n  ${errors}`);
  let done = 0;
  const verdicts = await runMutants(url, keys, mutants, observation, workers, (verdict) => {
    console.log(progressLine(++done, mutants.length, verdict));
    appendFileSync(running, `${JSON.stringify(verdict)}\n`);
  });
  const score = scoreOf(verdicts);
  const seconds = (Date.now() - started) / 1000;
  const date = new Date().toISOString().slice(0, 10);
  const complete = values.sample === undefined && !values.only && !listed;
  // only a complete run says which clauses no mutant breaks; a partial one reads the last record
  const gaps = complete ? traceGaps(score.killsByClause) : traceGaps(undefined, readRecord());
  const markdown = `${renderScore(score, verdicts, { date, seconds })}\n${gapLines(gaps).join('\n')}`;
  if (complete) {
    const named = Object.fromEntries(
      verdicts.flatMap((v) => {
        const sentences = allMutants().find((m) => m.id === v.id)?.sentences;
        return sentences ? [[v.id, { fate: v.fate, sentences }]] : [];
      }),
    );
    const record = {
      date,
      commit,
      mutants: verdicts.length,
      score: `${(100 * score.rate).toFixed(1)} %`,
      killsByClause: score.killsByClause,
      named,
    };
    writeRecord(record);
    writeFileSync(TRACE_TABLE, renderTraceTable(allMutants(), record));
    console.log(`mutate: the record of this complete run and ${TRACE_TABLE} rewritten (commit them)`);
  }
  writeFileSync(path.join(dir, 'mutation.md'), markdown);
  writeFileSync(path.join(dir, 'mutation.json'), JSON.stringify({ score, verdicts }, null, 2));
  console.log(`\n${markdown}`);
  console.log(`mutate: report in ${path.relative(process.cwd(), dir) || '.'}/mutation.{md,json}`);
  process.exitCode = score.rate < threshold ? 1 : 0;
} finally {
  mock.child.kill('SIGTERM');
  await mock.exited;
}
