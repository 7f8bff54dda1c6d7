import { CLAUSES, type Clause } from '../clauses.js';
import type { OpenApiContract } from '../harness/openapi-contract.js';
import type { LeftResource } from '../harness/cleanup.js';
import type { Step } from '../harness/steps.js';
import { readRecord } from '../trace/mutation-record.js';
import { traceGaps, type TraceGaps } from '../trace/gaps.js';
import { rootCauses, type RootCause } from './root-causes.js';

/** `blocked`: a step the check needed failed first, so its clauses were not judged (see root causes). */
export type Outcome = 'pass' | 'fail' | 'blocked' | 'skipped';

/** One check as the run saw it. */
export interface CheckResult {
  title: string;
  file: string;
  clauses: string[];
  outcome: Outcome;
  durationMs: number;
  error?: string;
  skipReason?: string;
  calls: Array<{ operationId: string; status: number }>;
  /** The reproducer script of a failure, relative to the report folder. */
  reproducer?: string;
  /** Clauses this check judged one by one, with their own outcome. */
  clauseOutcomes?: Record<string, { outcome: 'pass' | 'fail'; error?: string; step?: Step }>;
  /** The step that blocked the check (outcome `blocked`). */
  blockedBy?: Step;
  /** The step whose answer the check's own expectation refused. */
  failedStep?: Step;
  /** What its cleanup could not remove. */
  left?: LeftResource[];
}

/** A resource a check's cleanup could not remove, pass or fail: still on the target, in the ledger. */
export interface LeftOnTarget extends LeftResource {
  check: string;
}

export interface ClauseResult extends Clause {
  outcome: Outcome | 'not-run';
  checks: Array<Pick<CheckResult, 'title' | 'outcome' | 'error' | 'skipReason' | 'reproducer' | 'blockedBy'>>;
}

/**
 * What a clause's result cell adds when some of its checks did not run: a pass judged by fewer
 * checks than the clause has says so, so it never reads as the whole clause met.
 */
export function partOfChecks(clause: Pick<ClauseResult, 'outcome' | 'checks'>): string {
  const ran = clause.checks.filter((k) => k.outcome !== 'skipped').length;
  return clause.outcome === 'pass' && ran < clause.checks.length
    ? ` (${ran} of ${clause.checks.length} checks ran)`
    : '';
}

export interface OperationResult {
  operationId: string;
  method: string;
  path: string;
  documented: string[];
  /** status -> number of responses seen. */
  seen: Record<string, number>;
  undocumented: string[];
}

/** Requests the suite made that no operation of the document describes, by label. */
export interface OtherRequestResult {
  label: string;
  seen: Record<string, number>;
}

export interface ConformanceReport {
  target: { baseUrl: string; profile: string; capabilities: string[] };
  startedAt: string;
  finishedAt: string;
  totals: {
    checks: Record<Outcome, number>;
    /** Stated and assumed clauses: the interface's promises. */
    clauses: Record<Outcome | 'not-run', number>;
    /** Advisory clauses apart: a fail there is "at risk", not a broken promise. */
    advisories: Record<Outcome | 'not-run', number>;
  };
  /** What failed, first: each failing step once, with what failed at it and what it blocked. */
  rootCauses: RootCause[];
  /** What the run left behind on the target: every resource a cleanup could not remove. */
  leftOnTarget: LeftOnTarget[];
  /** Where the trace from the interface's sentences to the clauses and their mutants breaks. */
  traceGaps: TraceGaps;
  clauses: ClauseResult[];
  operations: OperationResult[];
  /** Every other request the checks made (presigned part URLs, share pages, unknown routes). */
  otherRequests: OtherRequestResult[];
  checks: CheckResult[];
}

/** Folds check results into the per-clause and per-operation view the owners of the interface read. */
export function buildReport(
  checks: CheckResult[],
  contract: OpenApiContract,
  target: ConformanceReport['target'],
  times: { startedAt: string; finishedAt: string },
): ConformanceReport {
  const clauses: ClauseResult[] = CLAUSES.map((clause) => {
    // A check that judged this clause on its own reports the clause's outcome, not its overall one,
    // unless the check failed for a reason no clause of it took (a response outside the document).
    const covering = checks
      .filter((c) => c.clauses.includes(clause.id))
      .map((c) => {
        const own = c.clauseOutcomes?.[clause.id];
        // A blocked check judged only what it reached: a clause it failed before the block fails,
        // the rest are blocked (a pass before the block is not the whole clause).
        if (c.outcome === 'blocked')
          return own?.outcome === 'fail' ? { ...c, outcome: own.outcome, error: own.error } : c;
        // An advisory reads what its check judged of the name coming back; the check's other
        // failure (its cleanup's 500) is said beside it and never makes it "at risk".
        if (own && clause.kind === 'advisory')
          return { ...c, outcome: own.outcome, error: own.error ?? c.error };
        const explained =
          c.outcome !== 'fail' || Object.values(c.clauseOutcomes ?? {}).some((o) => o.outcome === 'fail');
        return own && explained ? { ...c, outcome: own.outcome, error: own.error } : c;
      });
    return {
      ...clause,
      outcome: clauseOutcome(covering.map((c) => c.outcome)),
      checks: covering.map(({ title, outcome, error, skipReason, reproducer, blockedBy }) => ({
        title,
        outcome,
        error,
        skipReason,
        reproducer,
        blockedBy,
      })),
    };
  });
  const operations: OperationResult[] = [...contract.operations.values()].map((op) => {
    const seen: Record<string, number> = {};
    for (const check of checks)
      for (const call of check.calls)
        if (call.operationId === op.operationId) seen[call.status] = (seen[call.status] ?? 0) + 1;
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      documented: op.statuses,
      seen,
      undocumented: Object.keys(seen).filter((status) => !op.statuses.includes(status)),
    };
  });
  const others = new Map<string, Record<string, number>>();
  for (const check of checks)
    for (const call of check.calls) {
      if (contract.operations.has(call.operationId)) continue;
      const seen = others.get(call.operationId) ?? {};
      seen[call.status] = (seen[call.status] ?? 0) + 1;
      others.set(call.operationId, seen);
    }
  return {
    target,
    ...times,
    totals: {
      checks: count(
        checks.map((c) => c.outcome),
        ['pass', 'fail', 'blocked', 'skipped'],
      ),
      clauses: count(
        clauses.filter((c) => c.kind !== 'advisory').map((c) => c.outcome),
        ['pass', 'fail', 'blocked', 'skipped', 'not-run'],
      ),
      advisories: count(
        clauses.filter((c) => c.kind === 'advisory').map((c) => c.outcome),
        ['pass', 'fail', 'blocked', 'skipped', 'not-run'],
      ),
    },
    rootCauses: rootCauses(checks),
    leftOnTarget: checks.flatMap((c) => (c.left ?? []).map((left) => ({ ...left, check: c.title }))),
    traceGaps: traceGaps(undefined, readRecord()),
    clauses,
    operations,
    otherRequests: [...others]
      .map(([label, seen]) => ({ label, seen }))
      .sort((a, b) => a.label.localeCompare(b.label)),
    checks,
  };
}

function clauseOutcome(outcomes: Outcome[]): ClauseResult['outcome'] {
  if (outcomes.length === 0) return 'not-run';
  if (outcomes.includes('fail')) return 'fail';
  // Evidence the clause needed was never gathered: not a pass, though nothing of it failed.
  if (outcomes.includes('blocked')) return 'blocked';
  if (outcomes.includes('pass')) return 'pass';
  return 'skipped';
}

function count<K extends string>(values: K[], keys: K[]): Record<K, number> {
  const result = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  for (const v of values) result[v]++;
  return result;
}
