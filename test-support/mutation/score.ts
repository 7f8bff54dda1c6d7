import { unobservable } from '../../contract-tests/unobservable.js';
import type { Mutant, MutantLog } from './mutant.js';
import { unchangedReason } from './unchanged.js';

/**
 * What became of each mutant, and the score: the share of mutants that changed an answer which
 * the suite then failed on. A mutant that changed no answer in its run (a stale read of a field
 * that never moves, a swap of two equal values) or whose answers no check receives is counted
 * apart: no check could have seen it, and the report lists both. So is a survivor the clause
 * catalogue calls not observable by a black-box client (contract-tests/unobservable.ts), with why.
 */
/** The least share of mutants the suite must kill: `npm test`'s sample asserts it. */
export const SCORE_THRESHOLD = 0.98;

export type Fate = 'killed' | 'survived' | 'unobservable' | 'unchanged' | 'unreached';

export interface Verdict {
  id: string;
  operation: string;
  summary: string;
  fate: Fate;
  failedClauses: string[];
  /** Why it was killed (the failures' first lines), or the answer it changed if it survived. */
  detail: string;
  files: readonly string[];
}

export function verdictOf(
  mutant: Mutant,
  files: readonly string[],
  log: MutantLog,
  outcome?: { failed: boolean; failedClauses: string[]; errors: string },
): Verdict {
  const fate: Fate = !outcome
    ? 'unreached'
    : outcome.failed
      ? 'killed'
      : log.changed === 0
        ? 'unchanged'
        : unobservable(mutant.id)
          ? 'unobservable'
          : 'survived';
  return {
    id: mutant.id,
    operation: mutant.operation,
    summary: mutant.summary,
    fate,
    failedClauses: outcome?.failedClauses ?? [],
    detail:
      fate === 'killed'
        ? (outcome?.errors ?? '')
        : fate === 'unobservable'
          ? `[${unobservable(mutant.id)!.kind}] ${unobservable(mutant.id)!.why}`
          : fate === 'unchanged'
            ? unchangedReason(mutant.id)
            : (log.example ?? ''),
    files,
  };
}

/** One progress line: `[123/412] getImage.200.body.name:drop killed (IMG-04)`. */
export function progressLine(done: number, total: number, verdict: Verdict): string {
  const clauses = verdict.failedClauses.length ? ` (${verdict.failedClauses.join(', ')})` : '';
  return `[${done}/${total}] ${verdict.id} ${verdict.fate}${verdict.fate === 'killed' ? clauses : ''}`;
}

interface Tally {
  killed: number;
  survived: number;
  unobservable: number;
  unchanged: number;
  unreached: number;
}

const rate = (t: Tally) => (t.killed + t.survived ? t.killed / (t.killed + t.survived) : 1);
const percent = (x: number) => `${(100 * x).toFixed(1)} %`;

function tally(verdicts: Verdict[]): Tally {
  const t: Tally = { killed: 0, survived: 0, unobservable: 0, unchanged: 0, unreached: 0 };
  for (const v of verdicts) t[v.fate]++;
  return t;
}

export interface Score {
  total: Tally;
  rate: number;
  byOperation: Record<string, Tally & { rate: number }>;
  /** How many mutants each clause's checks killed. */
  killsByClause: Record<string, number>;
}

export function scoreOf(verdicts: Verdict[]): Score {
  const total = tally(verdicts);
  const byOperation: Score['byOperation'] = {};
  for (const operation of [...new Set(verdicts.map((v) => v.operation))]) {
    const t = tally(verdicts.filter((v) => v.operation === operation));
    byOperation[operation] = { ...t, rate: rate(t) };
  }
  const killsByClause: Record<string, number> = {};
  for (const v of verdicts)
    if (v.fate === 'killed') for (const c of v.failedClauses) killsByClause[c] = (killsByClause[c] ?? 0) + 1;
  return { total, rate: rate(total), byOperation, killsByClause };
}

/** The report as Markdown: the score, per operation, per clause, then every survivor and what it changed. */
export function renderScore(
  score: Score,
  verdicts: Verdict[],
  meta: { date: string; seconds: number },
): string {
  const { total } = score;
  const lines = [
    `# Mutation score: ${percent(score.rate)}`,
    '',
    `${meta.date}; ${verdicts.length} mutants in ${meta.seconds.toFixed(0)} s: ${total.killed} killed, ${total.survived} survived, ${total.unobservable} survived not observable, ${total.unchanged} changed no answer, ${total.unreached} reach no check.`,
    '',
    '## Per operation',
    '',
    '| operation | kill rate | killed | survived | changed no answer | reach no check |',
    '| --- | --- | --- | --- | --- | --- |',
    ...Object.entries(score.byOperation).map(
      ([op, t]) =>
        `| ${op} | ${percent(t.rate)} | ${t.killed} | ${t.survived} | ${t.unchanged} | ${t.unreached} |`,
    ),
    '',
    '## Kills per clause',
    '',
    '| clause | mutants killed |',
    '| --- | --- |',
    ...Object.entries(score.killsByClause)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([clause, n]) => `| ${clause} | ${n} |`),
    '',
    '## Survivors',
    '',
    ...verdicts
      .filter((v) => v.fate === 'survived')
      .flatMap((v) => [
        `- \`${v.id}\`: ${v.summary} (checks: ${v.files.join(', ')})`,
        '  ```',
        `  ${v.detail.replace(/\n/g, '\n  ')}`,
        '  ```',
      ]),
    '',
    '## Survived, not observable (contract-tests/unobservable.ts)',
    '',
    ...verdicts.filter((v) => v.fate === 'unobservable').map((v) => `- \`${v.id}\`: ${v.detail}`),
    '',
    '## Changed no answer',
    '',
    ...verdicts
      .filter((v) => v.fate === 'unchanged')
      .map((v) => `- \`${v.id}\`: ${v.detail} (reached by ${v.files.join(', ') || 'no file'})`),
    '',
    '## Reach no check',
    '',
    ...verdicts.filter((v) => v.fate === 'unreached').map((v) => `- \`${v.id}\``),
    '',
  ];
  return lines.join('\n');
}
