import { test, type TestContext } from 'vitest';
import { ADVISORY_IDS, CLAUSE_IDS } from '../clauses.js';
import path from 'node:path';
import { ApiClient, newCheckRecord, type CheckRecord } from './api-client.js';
import { reportDir } from './cleanup.js';
import { writeReproducer } from './reproducer.js';
import { Cleanup, leftLines, type LeftResource } from './cleanup.js';
import { sharedContract, type OpenApiContract } from './openapi-contract.js';
import { currentTarget } from './current-target.js';
import { enterGate, GateTimeout } from './check-gate.js';
import { bodyWithin, checkTimeoutMs, CLEANUP_RESERVE_MS, lateUndos } from './check-deadline.js';
import { BlockedByStep, saying, stepOf, StepAnsweredOtherwise, withLastAnswer, type Step } from './steps.js';
import { pollTimeoutMs, type Capability, type Target } from './target.js';

export interface CheckContext {
  target: Target;
  contract: OpenApiContract;
  /** Client with the main organization's key. */
  api: ApiClient;
  /** Client with another organization's key, when the target has one (isolation checks). */
  other?: ApiClient;
  /** Client with a tiny-plan organization's key, when the target has one (cap checks). */
  tiny?: ApiClient;
  cleanup: Cleanup;
  /** Marks the check skipped with a reason the report shows. */
  skip(reason: string): never;
  /**
   * Runs the assertions of one clause and records its own outcome, so one check can judge several
   * clauses apart: a failure is noted and the check goes on, then fails at its end naming the clause.
   */
  verify(clauseId: string, assertions: () => unknown): Promise<boolean>;
  /** A client with another key (a throw-away organization's) whose calls count with the check's. */
  clientFor(key: string): ApiClient;
  /**
   * Waits `ms` without counting as a running check: a lone check (check-gate.ts) may run meanwhile,
   * and has put back what it moved before this one goes on. For a check that waits on purpose, so
   * a lone check is not held up behind it.
   */
  idle(ms: number): Promise<void>;
}

export interface CheckMeta {
  clauses: string[];
  calls: Array<{ operationId: string; status: number }>;
  skipReason?: string;
  /** The reproducer script written when the check failed, relative to the report folder. */
  reproducer?: string;
  /** Outcomes of the clauses the check judged one by one (see CheckContext.verify). */
  clauseOutcomes?: Record<string, { outcome: 'pass' | 'fail'; error?: string; step?: Step }>;
  /** What its cleanup could not remove, pass or fail (the report's "left on the target"). */
  left?: LeftResource[];
  /** The step the check needed and did not get (steps.ts `need`): its clauses are blocked, not failed. */
  blockedBy?: Step;
  /**
   * The step whose answer failed the check's own expectation (steps.ts `expectStatus`), or the
   * server error every violation of a check failed by violations alone came from.
   */
  failedStep?: Step;
}

declare module 'vitest' {
  interface TaskMeta {
    contract?: CheckMeta;
  }
}

let contract: OpenApiContract | undefined;

export interface CheckOptions {
  clauses: string[];
  requires?: Capability[];
  /** Keys the check needs besides the main one. */
  needs?: Array<'other' | 'tiny'>;
  timeout?: number;
  /**
   * Run alone, not beside the other checks of its file: for checks that fill or count one shared
   * organization's caps (the tiny-plan key's).
   */
  sequential?: boolean;
  /**
   * Set when Prism's proxy answers these requests itself (missing or malformed credentials,
   * malformed JSON), so through `--via-prism` the check would judge Prism, not the target.
   */
  prismAnswersItself?: boolean;
  /**
   * Run with no other check running, in any file: for a check that moves what every check shares
   * (the mock's clock), so no other check's answers carry its moved times.
   */
  alone?: boolean;
}

/**
 * One contract check: names the clauses it verifies, runs against the configured target, fails on
 * any response that breaks the document, and deletes what it created even when it fails.
 */
export function check(
  title: string,
  options: CheckOptions,
  body: (ctx: CheckContext) => Promise<void>,
): void {
  for (const id of options.clauses)
    if (!CLAUSE_IDS.has(id)) throw new Error(`check "${title}" names unknown clause ${id}`);
  const timeout = checkTimeoutMs(options.timeout, pollTimeoutMs(process.env));
  (options.sequential ? test.sequential : test)(
    `[${options.clauses.join(' ')}] ${title}`,
    { timeout },
    (testContext: TestContext) => runCheck(title, { ...options, timeout }, body, testContext),
  );
}

/** Marks the check skipped with a reason the report shows. */
const skipper =
  (meta: CheckMeta, testContext: TestContext) =>
  (reason: string): never => {
    meta.skipReason = reason;
    testContext.skip(reason);
    throw new Error('unreachable');
  };

/** One run of a check: its context, its body, its verdict, its cleanup and, when it failed, its reproducer. */
export async function runCheck(
  title: string,
  options: CheckOptions,
  body: (ctx: CheckContext) => Promise<void>,
  testContext: TestContext,
): Promise<void> {
  const meta: CheckMeta = { clauses: options.clauses, calls: [] };
  testContext.task.meta.contract = meta;
  const skip = skipper(meta, testContext);
  const target = currentTarget();
  const document = (contract ??= sharedContract());
  const unmet = unmetRequirement(options, target);
  if (unmet) skip(unmet);
  // Held to the end of the cleanup: what a lone check moved is put back before others run.
  let leaveGate: () => void;
  try {
    leaveGate = await enterGate(options.alone ?? false);
  } catch (err) {
    if (err instanceof GateTimeout) skip(`it runs alone, and ${err.message}`);
    throw err;
  }
  let ended = false;
  const idle = async (ms: number) => {
    if (!options.alone) leaveGate();
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (options.alone) return;
    const entered = await enterGate(false);
    // cut at its deadline while it waited, the check has already left: it holds nothing now
    if (ended) entered();
    else leaveGate = entered;
  };
  try {
    await judgeAndClean(title, options, body, meta, target, document, testContext, idle);
  } finally {
    ended = true;
    leaveGate();
  }
}

/** The check's body judged, its cleanup run, and on failure its reproducer written. */
async function judgeAndClean(
  title: string,
  options: CheckOptions,
  body: (ctx: CheckContext) => Promise<void>,
  meta: CheckMeta,
  target: Target,
  document: OpenApiContract,
  testContext: TestContext,
  idle: CheckContext['idle'],
): Promise<void> {
  const skip = skipper(meta, testContext);
  const cut = new AbortController();
  const record = { ...newCheckRecord(), cut: cut.signal, clauses: options.clauses };
  const clientFor = (key: string) => new ApiClient(document, target, key, record);
  const cleanup = new Cleanup();
  const clauseFailures: string[] = [];
  const verify = clauseVerifier(title, options, meta, record, clauseFailures);
  const ctx: CheckContext = {
    target,
    contract: document,
    api: clientFor(target.keys.main),
    other: target.keys.other ? clientFor(target.keys.other) : undefined,
    tiny: target.keys.tiny ? clientFor(target.keys.tiny) : undefined,
    cleanup,
    skip,
    verify,
    clientFor,
    idle,
  };
  const budgetMs = (options.timeout ?? 120_000) - CLEANUP_RESERVE_MS;
  let running = Promise.resolve();
  const { failure, failedAt, violationsAlone } = await judgeBody(
    () => bodyWithin((running = body(ctx)), budgetMs, cut),
    ctx,
    meta,
    record,
    clauseFailures,
  );
  // Cleanup's own answers count too: a 5xx while deleting what the check made is the target
  // failing, never something to tolerate in silence (its reproducer then runs to the cleanup).
  const beforeCleanup = record.violations.length;
  await cleanup.run();
  meta.calls = record.seen;
  meta.left = cleanup.left;
  const cleanupErrors = record.violations.slice(beforeCleanup);
  // Its findings are the check's, though it was judged: awaited before the check ends, within
  // the body's last request and each undo's reads and delete.
  if (cut.signal.aborted)
    testContext.onTestFinished(
      lateUndos(running, cleanup, record, target.requestTimeoutMs),
      5 * target.requestTimeoutMs,
    );
  // Said beside the check's own failure too: a refused delete leaves something behind.
  const cleanupNotes = [...cleanupErrors, ...leftLines(cleanup.left)];
  if (failure?.error instanceof Error && cleanupNotes.length)
    failure.error.message += `\nand its cleanup:\n- ${cleanupNotes.join('\n- ')}`;
  const failed =
    failure ??
    (cleanupErrors.length
      ? {
          error: new Error(
            `the check passed, but its cleanup got server errors or met what it must not delete:\n- ${cleanupNotes.join('\n- ')}`,
          ),
        }
      : undefined);
  if (!failed) return;
  if (!failure || violationsAlone) meta.failedStep = oneServerErrorStep(record);
  if (!meta.skipReason)
    meta.reproducer = reproduce(
      meta.blockedBy
        ? `step-${meta.blockedBy.key} ${saying(meta.blockedBy) ?? ''}`
        : `${options.clauses[0]}-${title}`,
      meta.blockedBy ? `the step that blocked "${title}": ${meta.blockedBy.text}` : title,
      options.clauses,
      failed.error,
      record,
      target,
      cleanupErrors.length ? undefined : failedAt,
    );
  throw failed.error;
}

/** Why the check cannot run against this target (a capability, a key, Prism in front), if it cannot. */
function unmetRequirement(options: CheckOptions, target: Target): string | undefined {
  for (const capability of options.requires ?? [])
    if (!target.capabilities.has(capability))
      return `needs '${capability}', not enabled for profile ${target.profile} (set CONTRACT_ENABLE=${capability} to allow it)`;
  if (options.prismAnswersItself && target.viaPrism)
    return 'through --via-prism, Prism answers these requests itself (credentials or JSON syntax) before the target sees them';
  for (const need of options.needs ?? [])
    if (!target.keys[need])
      return `needs a ${need === 'other' ? "second organization's key (CONTRACT_OTHER_ORG_API_KEY)" : "tiny-plan organization's key (CONTRACT_TINY_API_KEY)"}`;
  return undefined;
}

/** CheckContext.verify for one run: each clause's outcome goes into `meta`, a failure into `clauseFailures`. */
function clauseVerifier(
  title: string,
  options: CheckOptions,
  meta: CheckMeta,
  record: CheckRecord,
  clauseFailures: string[],
): CheckContext['verify'] {
  return async (clauseId, assertions) => {
    if (!options.clauses.includes(clauseId))
      throw new Error(`check "${title}" verifies ${clauseId} but does not name it in its clauses`);
    meta.clauseOutcomes ??= {};
    try {
      await assertions();
      if (meta.clauseOutcomes[clauseId]?.outcome !== 'fail')
        meta.clauseOutcomes[clauseId] = { outcome: 'pass' };
      return true;
    } catch (err) {
      if (err instanceof BlockedByStep) throw err;
      const error = `${clauseId}: ${withLastAnswer((err as Error).message, record.transcript, contract!)}`;
      meta.clauseOutcomes[clauseId] = {
        outcome: 'fail',
        error,
        ...(err instanceof StepAnsweredOtherwise ? { step: err.step } : {}),
      };
      // An advisory is reported "at risk" and never fails the check (clauses.ts).
      if (!ADVISORY_IDS.has(clauseId)) clauseFailures.push(error);
      return false;
    }
  };
}

/**
 * Runs the body and judges it: what it threw, the clauses it failed, the answers that broke the
 * document. `failedAt` is the number of requests up to the failure, before cleanup adds its own.
 */
async function judgeBody(
  body: () => Promise<void>,
  ctx: CheckContext,
  meta: CheckMeta,
  record: CheckRecord,
  clauseFailures: string[],
): Promise<{ failure?: { error: unknown }; failedAt?: number; violationsAlone?: boolean }> {
  let failedAt: number | undefined;
  try {
    try {
      await body();
    } catch (err) {
      failedAt = record.transcript.length;
      if (err instanceof Error && !meta.skipReason)
        err.message = withLastAnswer(err.message, record.transcript, ctx.contract);
      throw err;
    }
    fileUnderClauses(meta, record, clauseFailures);
    // both said when both happened: a clause's failure must not hide an answer that broke the rest
    const failures = [
      ...(clauseFailures.length ? [`clauses failed:\n- ${clauseFailures.join('\n- ')}`] : []),
      ...(record.violations.length ? [violationsError(record.violations).message] : []),
    ];
    if (failures.length)
      return { failure: { error: new Error(failures.join('\n')) }, violationsAlone: !clauseFailures.length };
    return {};
  } catch (err) {
    if (err instanceof BlockedByStep) meta.blockedBy = err.step;
    if (err instanceof StepAnsweredOtherwise) meta.failedStep = err.step;
    return { failure: { error: err }, failedAt };
  }
}

/**
 * What was filed under one clause (CheckRecord.filed) fails that clause alone. When nothing else
 * failed, the check's other clauses passed all it judged, and say so: a rule of the document's
 * never fails a stated clause the same check judged.
 */
function fileUnderClauses(meta: CheckMeta, record: CheckRecord, clauseFailures: string[]): void {
  if (!record.filed.length) return;
  const alone = !clauseFailures.length && !record.violations.length;
  meta.clauseOutcomes ??= {};
  for (const clause of new Set(record.filed.map((f) => f.clause))) {
    const messages = record.filed.filter((f) => f.clause === clause).map((f) => f.message);
    const error = `${clause}: ${messages.join('\n  ')}`;
    meta.clauseOutcomes[clause] = { outcome: 'fail', error };
    clauseFailures.push(error);
  }
  if (alone) for (const clause of meta.clauses) meta.clauseOutcomes[clause] ??= { outcome: 'pass' };
}

/**
 * The step a failure made of violations alone comes from, when every violation (the cleanup's
 * too) came from server errors of one operation, status and body: the status undocumented, the oracle
 * having expected another, a cleanup's read that met it, all follow from that 5xx, which the
 * report then names once for every check it failed.
 */
function oneServerErrorStep(record: CheckRecord): Step | undefined {
  const steps = record.fromServerErrors.map(stepOf);
  const [first] = steps;
  if (!first || steps.length !== record.violations.length) return undefined;
  const same = (step: Step) => step.key === first.key && saying(step) === saying(first);
  return steps.every(same) ? first : undefined;
}

/** The oracle's findings (contract-tests/model) said apart from answers outside the document. */
function violationsError(violations: string[]): Error {
  const oracle = violations.filter((v) => v.startsWith('oracle: '));
  const document = violations.filter((v) => !v.startsWith('oracle: '));
  return new Error(
    [
      ...(document.length ? [`responses broke the document:\n- ${document.join('\n- ')}`] : []),
      ...(oracle.length ? [`answers disagree with the interface:\n- ${oracle.join('\n- ')}`] : []),
    ].join('\n'),
  );
}

/**
 * Writes the failed check's reproducer; answers its path relative to the report folder. A step
 * that blocked checks has one reproducer (named after the step), whichever check met it.
 */
function reproduce(
  name: string,
  title: string,
  clauses: string[],
  err: unknown,
  record: CheckRecord,
  target: Target,
  upTo: number | undefined,
): string | undefined {
  try {
    const slug = name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 72);
    const dir = path.join(reportDir(), 'reproducers');
    const file = writeReproducer(dir, slug, {
      title,
      clauses,
      error: err instanceof Error ? err.message : String(err),
      baseUrls: [...new Set([target.baseUrl, target.directBaseUrl])],
      exchanges: record.transcript.slice(0, upTo),
      secrets: [target.keys.main, target.keys.other, target.keys.tiny, target.keys.second, target.adminToken],
    });
    return path.relative(reportDir(), file);
  } catch {
    return undefined; // a reproducer that cannot be written must not hide the failure itself
  }
}
