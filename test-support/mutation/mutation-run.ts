import { readdirSync } from 'node:fs';
import path from 'node:path';
import { CLAUSE_SENTENCES } from '../../contract-tests/clauses.js';
import { REPO_ROOT } from '../launched-mock.js';
import { runCases, type CaseOutcome, type CaseRun, type Keys } from './case-runs.js';
import { operationOf } from './document-mutants.js';
import type { Mutant, MutantLog } from './mutant.js';
import { verdictOf, type Verdict } from './score.js';

/**
 * A mutation run: first every check file once against a proxy that only watches (which operation
 * and status each file receives, and that the suite passes against the healthy target), then each
 * mutant against the check files that receive the answers it edits.
 */

export const CHECK_FILES = readdirSync(path.join(REPO_ROOT, 'contract-tests', 'checks'))
  .filter((f) => f.endsWith('.check.ts'))
  .sort();

export interface Observation {
  /** `operation status` pairs each file received (through the proxy). */
  reached: Map<string, Set<string>>;
  /** `operation status` pairs each check of each file received (through its client), by full name. */
  checks: Map<string, Record<string, string[]>>;
  /** Files that failed against the healthy target, twice: no mutant is judged by them. */
  failing: Map<string, string>;
  durations: Record<string, number>;
}

export async function observe(mockUrl: string, keys: Keys, workers: number): Promise<Observation> {
  const reached = new Map<string, Set<string>>();
  const runs: CaseRun[] = CHECK_FILES.map((file) => {
    const seen = new Set<string>();
    reached.set(file, seen);
    return {
      key: `observe-${file.replace(/\W/g, '-')}`,
      files: [file],
      sabotage: {
        breaks: [],
        files: [],
        response: (exchange, answer) => void seen.add(`${operationOf(exchange)} ${answer.status}`),
      },
    };
  });
  const outcomes = await runCases(mockUrl, keys, runs, workers, () => undefined);
  // A file that failed is run once more, alone: on a loaded machine a poll may time out once.
  const again = runs.filter((run) => outcomes.get(run.key)?.failed !== false);
  if (again.length)
    for (const [key, outcome] of await runCases(mockUrl, keys, again, 1, () => undefined))
      outcomes.set(key, outcome);
  const failing = new Map<string, string>();
  const durations: Record<string, number> = {};
  const checks = new Map<string, Record<string, string[]>>();
  runs.forEach((run, i) => {
    const outcome = outcomes.get(run.key);
    Object.assign(durations, outcome?.durations);
    checks.set(CHECK_FILES[i], outcome?.calls ?? {});
    if (!outcome || outcome.failed) failing.set(CHECK_FILES[i], outcome?.errors ?? 'did not run');
  });
  return { reached, checks, failing, durations };
}

/** One check file a mutant runs, narrowed to some of its checks. */
export interface Target {
  file: string;
  pattern?: RegExp;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What a mutant runs: a semantic one its own files (narrowed as its sabotage case is); a generated
 * one (and a behaviour one) each file that received an answer it edits (or is triggered by), narrowed to the checks whose client received it
 * (the whole file when the answer reached the file some other way, e.g. a cleanup's request).
 */
export function targetsFor(mutant: Mutant, observation: Observation): Target[] {
  if (mutant.files)
    return mutant.files
      .filter((file) => !observation.failing.has(file))
      .map((file) => ({ file, pattern: mutant.only === undefined ? undefined : new RegExp(mutant.only) }));
  const pairs = (mutant.reachesAny ?? [mutant.reaches!]).map((r) => `${r.operation} ${r.status}`);
  return CHECK_FILES.filter(
    (file) =>
      pairs.some((pair) => observation.reached.get(file)?.has(pair)) && !observation.failing.has(file),
  ).map((file) => {
    const names = Object.entries(observation.checks.get(file) ?? {})
      .filter(([, calls]) => pairs.some((pair) => calls.includes(pair)))
      .map(([name]) => escape(name));
    return { file, pattern: names.length ? new RegExp(`^(?:${names.join('|')})$`) : undefined };
  });
}

/**
 * The files among `targets` that hold a check of a clause of a sentence `mutant` names as the
 * rule it breaks: a mutant written from a sentence is tried against every check of that sentence,
 * so a kill is credited to the clauses that hold it, not only to the cheapest file that failed.
 */
export function aimedFiles(mutant: Mutant, targets: Target[], observation: Observation): Set<string> {
  const named = new Set(mutant.sentences ?? []);
  const clauses = new Set(
    Object.entries(CLAUSE_SENTENCES)
      .filter(([, sentences]) => sentences.some((s) => named.has(s)))
      .map(([clause]) => clause),
  );
  const holds = (file: string) =>
    Object.keys(observation.checks.get(file) ?? {}).some((name) =>
      (/^\[([^\]]*)\]/.exec(name)?.[1] ?? '').split(' ').some((clause) => clauses.has(clause)),
    );
  return new Set(targets.map((t) => t.file).filter(holds));
}

/**
 * Runs the mutants in rounds: each round runs the next of each surviving mutant's check files,
 * cheapest first (by the watching run's durations), so a mutant the first file kills costs one
 * file, and only survivors run every file that receives their answers. A killed mutant that names
 * the sentences it breaks still runs the files that check those sentences (aimedFiles), and its
 * verdict names every clause that failed.
 */
export async function runMutants(
  mockUrl: string,
  keys: Keys,
  mutants: Mutant[],
  observation: Observation,
  workers: number,
  onVerdict: (verdict: Verdict) => void,
): Promise<Verdict[]> {
  const verdicts = new Map<string, Verdict>();
  const cost = (file: string) => observation.durations[file] ?? Infinity;
  const live = mutants.map((mutant, i) => {
    const targets = targetsFor(mutant, observation).sort((a, b) => cost(a.file) - cost(b.file));
    const files = targets.map((t) => t.file);
    const log: MutantLog = { changed: 0 };
    const aimed = aimedFiles(mutant, targets, observation);
    const kill: { outcome?: CaseOutcome; clauses: Set<string> } = { clauses: new Set() };
    return { mutant, key: `m${i}`, targets, files, log, sabotage: mutant.build(log), aimed, kill, next: 0 };
  });
  type Entry = (typeof live)[number];
  const settle = (entry: Entry, outcome?: CaseOutcome) => {
    const verdict = verdictOf(entry.mutant, entry.files, entry.log, outcome);
    verdicts.set(entry.mutant.id, verdict);
    onVerdict(verdict);
  };
  // The next file to run: the next one while the mutant lives, the next aimed one once it is killed.
  const following = (entry: Entry): number => {
    for (let i = entry.next + 1; i < entry.targets.length; i++)
      if (!entry.kill.outcome || entry.aimed.has(entry.targets[i].file)) return i;
    return -1;
  };
  for (const entry of live.filter((e) => !e.files.length)) settle(entry);
  let pending = live.filter((e) => e.files.length);
  while (pending.length) {
    const byKey = new Map(pending.map((e) => [e.key, e]));
    const runs: CaseRun[] = pending.map((e) => ({
      key: e.key,
      files: [e.targets[e.next].file],
      sabotage: e.sabotage,
      env: e.mutant.env,
      pattern: e.targets[e.next].pattern,
    }));
    const next: typeof pending = [];
    await runCases(mockUrl, keys, runs, workers, (outcome: CaseOutcome) => {
      const entry = byKey.get(outcome.key)!;
      if (outcome.failed) {
        entry.kill.outcome ??= outcome;
        for (const clause of outcome.failedClauses) entry.kill.clauses.add(clause);
      }
      entry.next = following(entry);
      if (entry.next >= 0) return void next.push(entry);
      const killed = entry.kill.outcome;
      settle(entry, killed ? { ...killed, failedClauses: [...entry.kill.clauses] } : outcome);
    });
    pending = next;
  }
  return mutants.map((m) => verdicts.get(m.id)!).filter(Boolean);
}
