import { readdirSync } from 'node:fs';
import path from 'node:path';
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
  /** `operation status` pairs each file received. */
  reached: Map<string, Set<string>>;
  /** Files that failed against the healthy target: no mutant is judged by them. */
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
  const failing = new Map<string, string>();
  const durations: Record<string, number> = {};
  runs.forEach((run, i) => {
    const outcome = outcomes.get(run.key);
    Object.assign(durations, outcome?.durations);
    if (!outcome || outcome.failed) failing.set(CHECK_FILES[i], outcome?.errors ?? 'did not run');
  });
  return { reached, failing, durations };
}

/** The check files a mutant runs: its own (semantic), or those that receive the answers it edits. */
export function filesFor(mutant: Mutant, observation: Observation): string[] {
  const own = mutant.files
    ? [...mutant.files]
    : CHECK_FILES.filter((f) =>
        observation.reached.get(f)?.has(`${mutant.reaches!.operation} ${mutant.reaches!.status}`),
      );
  return own.filter((f) => !observation.failing.has(f));
}

export async function runMutants(
  mockUrl: string,
  keys: Keys,
  mutants: Mutant[],
  observation: Observation,
  workers: number,
  onVerdict: (verdict: Verdict) => void,
): Promise<Verdict[]> {
  const logs = new Map<string, MutantLog>();
  const byKey = new Map<string, { mutant: Mutant; files: string[] }>();
  const verdicts = new Map<string, Verdict>();
  const runs: CaseRun[] = [];
  mutants.forEach((mutant, i) => {
    const files = filesFor(mutant, observation);
    const log: MutantLog = { changed: 0 };
    logs.set(mutant.id, log);
    if (!files.length) {
      const verdict = verdictOf(mutant, files, log);
      verdicts.set(mutant.id, verdict);
      onVerdict(verdict);
      return;
    }
    const key = `m${i}`;
    byKey.set(key, { mutant, files });
    runs.push({
      key,
      files,
      sabotage: mutant.build(log),
      env: mutant.env,
      // a semantic mutant runs the checks its sabotage case names, as its own test does
      pattern: mutant.only === undefined ? undefined : new RegExp(mutant.only),
    });
  });
  await runCases(mockUrl, keys, runs, workers, (outcome: CaseOutcome) => {
    const { mutant, files } = byKey.get(outcome.key)!;
    const verdict = verdictOf(mutant, files, logs.get(mutant.id)!, outcome);
    verdicts.set(mutant.id, verdict);
    onVerdict(verdict);
  });
  return mutants.map((m) => verdicts.get(m.id)!).filter(Boolean);
}
