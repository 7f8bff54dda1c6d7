/**
 * A readiness run: the partner's own test command, first on a fresh mock with nothing armed (the
 * baseline: it must pass, and its journal tells which operations the client calls), then once per
 * case those operations can meet, each on a fresh mock of its own armed with that case. Runs share
 * nothing, so they go side by side.
 */
import {
  READINESS_CASES,
  caseApplies,
  type CaseId,
  type ReadinessCase,
  type SeenRequest,
} from '../control/readiness/readiness-cases.js';
import { toJournalEntryResource } from '../http/render/control.js';
import { startMockServer } from '../server.js';
import { CASE_ARMING, type ArmingContext, type CaseArming } from './case-arming.js';
import { clientReaction } from './client-reaction.js';
import { clientRequests, describeRequest, type JournalEntry } from './journal-entry.js';
import { KeptJournal } from './kept-journal.js';
import { endsWithRunner, runInGroup, unlessEnding, type CommandOutcome } from './run-in-group.js';

export interface RunOptions {
  command: readonly string[];
  /** Only these cases (all of the catalogue when absent). */
  cases?: readonly CaseId[];
  parallel: number;
  caseTimeoutMs: number;
  /** Told of each finished run, for a progress line. */
  onRun?(name: string, verdict: string): void;
}

export type Verdict = 'survived' | 'failed' | 'never reached' | 'does not apply';

export interface RunRecord extends CommandOutcome {
  /** The run's journal as kept (kept-journal.ts: whole up to its bound), oldest first. */
  journal: JournalEntry[];
}

export interface CaseResult {
  id: CaseId;
  title: string;
  verdict: Verdict;
  /** Why the verdict: the exit status, the time limit, or what was never called. */
  because: string;
  /** How the client reacted, where the journal shows it. */
  reaction: string | null;
  /** The requests around the case (the armed answer and those just before and after it). */
  evidence: string[];
  run: RunRecord | null;
}

export interface ReadinessReport {
  command: string[];
  startedAt: string;
  durationMs: number;
  caseTimeoutMs: number;
  baseline: RunRecord & { passed: boolean; operations: string[] };
  cases: CaseResult[];
}

/** Lifetime of a part URL on the runs' mocks: what production gives (10 minutes). */
const PRESIGN_EXPIRY_SECONDS = 600;

interface OneRun {
  record: RunRecord;
  requests: SeenRequest[];
  /** The arming's action on the journal fired. */
  acted: boolean;
}

/** A run's own mock, in this process, with the first seeded organization's key for the command. */
async function startRunMock() {
  const mock = await startMockServer({
    port: 0,
    logLevel: 'silent',
    predictionStartDelayMs: 0,
    predictionRunDelayMs: 0,
    presignExpirySeconds: PRESIGN_EXPIRY_SECONDS,
  });
  const [organization] = await mock.services.state.organizations.all();
  const apiKey = (await mock.services.seededKeys()).get(organization.id)?.[0] ?? '';
  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const answer = await fetch(`${mock.url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    if (!answer.ok) throw new Error(`${method} ${path} answered ${answer.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return { mock, apiUrl: `${mock.url}/api/v1`, apiKey, organizationId: organization.id, control };
}

async function runOnce(
  options: RunOptions,
  operations: ReadonlyMap<string, string>,
  armed?: ReadinessCase,
): Promise<OneRun> {
  const arming = armed && CASE_ARMING[armed.id];
  await unlessEnding();
  const starting = startRunMock();
  // A signal ending the runner closes the mock first, or its temporary data folder stays behind.
  const forget = endsWithRunner(async () => (await starting).mock.close());
  const { mock, apiUrl, apiKey, organizationId, control } = await starting.catch((error: unknown) => {
    forget();
    throw error;
  });
  try {
    const ctx: ArmingContext = {
      control,
      api: (method, path) =>
        fetch(`${apiUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}` } }),
      organizationId,
      operations,
      presignExpirySeconds: PRESIGN_EXPIRY_SECONDS,
    };
    await arming?.arm(ctx);
    // Every entry as the mock records it, not read back from its journal: the journal keeps an
    // organization's last 1000, and a busy client (a contract run with the same key) pushed the
    // armed answers out between two reads, which then read as a case never reached.
    const kept = new KeptJournal(armed);
    let running = true;
    let acted = false;
    let acting = Promise.resolve();
    const unwatch = mock.services.journal.watch((read) => {
      const entry = toJournalEntryResource(read);
      kept.add(entry);
      // Only while the command runs: what it would meet after it ended reaches nothing.
      const onEntry = arming?.onEntry;
      if (onEntry && !acted)
        acting = acting.then(async () => {
          if (running && !acted && (await onEntry(entry, ctx))) acted = true;
        });
      // Awaited once the command has ended: a failure before then must not end the whole process.
      acting.catch(() => undefined);
    });
    const outcome = await runInGroup(
      options.command,
      { CELLSEG_BASE_URL: apiUrl, CELLSEG_API_KEY: apiKey },
      options.caseTimeoutMs,
    );
    await unlessEnding();
    running = false;
    await acting;
    // Closed before the journal is taken: the requests still in flight are recorded first.
    await mock.close();
    unwatch();
    const journal = kept.entries();
    return {
      record: { ...outcome, journal },
      requests: clientRequests(journal),
      acted,
    };
  } finally {
    await mock.close();
    forget();
  }
}

function exitText(o: CommandOutcome, limitMs: number): string {
  if (o.timedOut) return `the command ran past the case's time limit (${limitMs} ms) and was ended`;
  if (o.exitCode === null) return `the command ended by ${o.signal ?? 'an error'}`;
  return `the command exited with ${o.exitCode}`;
}

/** Where the case shows in the journal: the armed answer, or the first call of an operation it sits on. */
function anchorOf(id: CaseId, arming: CaseArming, requests: readonly SeenRequest[]): number {
  const armed = requests.findIndex((r) => r.fault);
  if (armed >= 0) return armed;
  const met = READINESS_CASES.find((c) => c.id === id)?.metBy(requests);
  if (met) return requests.indexOf(met);
  return requests.findIndex((r) => arming.reachedBy?.includes(r.operationId ?? ''));
}

function judge(id: CaseId, title: string, arming: CaseArming, run: OneRun, limitMs: number): CaseResult {
  const { record, requests } = run;
  const missed = run.acted ? (arming.missedAfterActing?.(requests) ?? null) : null;
  const reached = arming.onEntry
    ? run.acted && !missed
    : arming.reachedBy
      ? requests.some((r) => arming.reachedBy?.includes(r.operationId ?? ''))
      : requests.some((r) => r.fault);
  const exited = exitText(record, limitMs);
  const anchor = anchorOf(id, arming, requests);
  const around = anchor >= 0 ? requests.slice(Math.max(0, anchor - 3), anchor + 6) : requests.slice(-6);
  const base = { id, title, reaction: clientReaction(id, requests), run: record };
  if (!reached)
    return {
      ...base,
      verdict: 'never reached',
      because: `${missed ?? 'armed, and the client never called what it sits on'} (${exited})`,
      evidence: around.map(describeRequest),
    };
  const passed = !record.timedOut && record.exitCode === 0;
  return {
    ...base,
    verdict: passed ? 'survived' : 'failed',
    because: exited,
    // A survived case shows the armed answer it got through; a failed one the requests around it.
    evidence: (passed ? requests.slice(Math.max(anchor, 0), anchor + 1) : around).map(describeRequest),
  };
}

async function inTurns<T, R>(
  items: readonly T[],
  parallel: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, items.length)) }, worker));
  return results;
}

export async function readinessRun(options: RunOptions): Promise<ReadinessReport> {
  const started = Date.now();
  const baselineRun = await runOnce(options, new Map());
  const called = baselineRun.requests.filter((r) => r.operationId && r.status !== 404);
  const operations = new Map(called.map((r) => [r.operationId ?? '', r.method]));
  const passed = !baselineRun.record.timedOut && baselineRun.record.exitCode === 0;
  options.onRun?.('baseline', passed ? 'passed' : 'FAILED');
  const baseline = { ...baselineRun.record, passed, operations: [...operations.keys()] };
  const chosen = READINESS_CASES.filter((c) => !options.cases || options.cases.includes(c.id));
  const cases = passed
    ? await inTurns(chosen, options.parallel, async (c): Promise<CaseResult> => {
        if (!caseApplies(c, called)) {
          const result: CaseResult = {
            id: c.id,
            title: c.title,
            verdict: 'does not apply',
            because: 'the baseline made no request it sits on',
            reaction: null,
            evidence: [],
            run: null,
          };
          options.onRun?.(c.id, result.verdict);
          return result;
        }
        const result = judge(
          c.id,
          c.title,
          CASE_ARMING[c.id],
          await runOnce(options, operations, c),
          options.caseTimeoutMs,
        );
        options.onRun?.(c.id, result.verdict);
        return result;
      })
    : [];
  return {
    command: [...options.command],
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    caseTimeoutMs: options.caseTimeoutMs,
    baseline,
    cases,
  };
}

/** The run failed when the baseline did, or when any case did. */
export function runFailed(report: ReadinessReport): boolean {
  return !report.baseline.passed || report.cases.some((c) => c.verdict === 'failed');
}

/**
 * A run that judged nothing: the baseline passed, and in no case did the command meet what was
 * armed (no request the case sits on, or its runs never reached it).
 */
export function judgedNothing(report: ReadinessReport): boolean {
  return (
    report.baseline.passed &&
    report.cases.every((c) => c.verdict === 'does not apply' || c.verdict === 'never reached')
  );
}
