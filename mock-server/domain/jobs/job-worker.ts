/**
 * A worker of durable jobs (domain/state.ts JobTable): it claims jobs any instance queued, runs up
 * to `concurrency` of them at once, renews each lease while its job runs, and gives a job up when
 * its lease is lost (renewal refused: the job was cancelled, or ran out and another worker took
 * it). A job whose worker died goes back to the queue when its lease runs out, and another
 * worker's claim runs it again; what a job publishes is guarded by its own row (a prediction
 * publishes only while it is in flight), so a job run twice has one visible effect. A run that
 * meets a store unavailable for a moment (store_unavailable: the object store or the state
 * database) puts its job off on the job's own row, for whichever worker claims it then, and its
 * handler fails it once it has been put off past `transientRetryMs` (its runs' working time not counted).
 */
import { randomUUID } from 'node:crypto';
import { type DomainError, isStoreUnavailable } from '../errors.js';
import type { JobKind, JobLease, StateStore } from '../state.js';

/**
 * Runs one claimed job; `signal` aborts when the lease is lost or the worker stops. A run that
 * rejects with store_unavailable is run again later, and must leave its row as its claim found it.
 */
export type JobHandler = (lease: JobLease, signal: AbortSignal) => Promise<void>;
/** Fails a job whose store stayed unavailable, with `why` (a sentence) in its row's reason. */
export type JobGiveUp = (lease: JobLease, why: string) => Promise<void>;

/** The first delay of a job put off, doubled (as long as the store has been unavailable) up to the last. */
const PUT_OFF_MS = { first: 1_000, most: 30_000 };

export interface JobWorkerOptions {
  /** How long a claim holds without renewal; renewed every third of it. */
  leaseMs: number;
  /** Jobs run at once by this worker (most of a job's time is its delays, not CPU). */
  concurrency: number;
  /** How often an idle worker looks for jobs other instances queued or whose lease ran out. */
  pollMs: number;
  /** How long a job whose runs keep meeting a store unavailable is put off before it fails (0: at once). */
  transientRetryMs: number;
}

interface Running {
  lease: JobLease;
  controller: AbortController;
  done: Promise<void>;
  /** Its renewal was refused: the job is another claim's now, so this run must not finish it. */
  lost?: boolean;
}

export class JobWorker {
  readonly id = `worker-${randomUUID()}`;
  private readonly running = new Map<string, Running>();
  private readonly handlers = new Map<JobKind, { run: JobHandler; giveUp: JobGiveUp }>();
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  /** Leases this worker lost while running their job (renewal refused), since it was made. */
  private lost = 0;
  /** Claims under way, so idle() does not answer between a claim and its run. */
  private claiming = 0;

  constructor(
    private readonly state: StateStore,
    private readonly options: JobWorkerOptions,
  ) {}

  /** Jobs this worker runs now, and the leases it lost, for the instance's metrics. */
  get leases(): { held: number; lost: number } {
    return { held: this.running.size, lost: this.lost };
  }

  handle(kind: JobKind, run: JobHandler, giveUp: JobGiveUp): void {
    this.handlers.set(kind, { run, giveUp });
  }

  /** Starts claiming jobs (the `worker` and `all` roles). */
  start(): void {
    this.stopped = false;
    this.loop ??= this.claimLoop();
  }

  /** A job was queued here: look for it now rather than at the next poll. */
  poke(): void {
    this.wake?.();
  }

  /** Queues a job already held by this worker, to be run here with `runHeld` once its transaction commits. */
  enqueueHeld(kind: JobKind, subjectId: string): Promise<void> {
    return this.state.jobs.enqueue(kind, subjectId, { worker: this.id, leaseMs: this.options.leaseMs });
  }

  /**
   * Runs a job this instance queued held (`enqueueHeld`), here and now: a single-request upload's
   * conversion, answered when it is done. If this instance dies, another worker takes the job when
   * its lease runs out.
   */
  async runHeld(kind: JobKind, subjectId: string): Promise<void> {
    await this.launch({ kind, subjectId, attempts: 1 }).done;
  }

  /** Aborts this worker's run of a job (its subject was deleted or reset) and waits for it to settle. */
  cancel(kind: JobKind, subjectIds: readonly string[]): Promise<void> {
    const ids = new Set(subjectIds);
    return this.cancelWhere((lease) => lease.kind === kind && ids.has(lease.subjectId));
  }

  /** Aborts every run of this worker whose lease matches, and waits for them to settle. */
  async cancelWhere(matches: (lease: JobLease) => boolean | Promise<boolean>): Promise<void> {
    const runs: Running[] = [];
    for (const run of this.running.values()) if (await matches(run.lease)) runs.push(run);
    for (const run of runs) run.controller.abort();
    await Promise.allSettled(runs.map((run) => run.done));
  }

  /** Resolves when this worker runs nothing and no job is queued that it could claim. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.running.size) {
        await Promise.allSettled([...this.running.values()].map((run) => run.done));
        continue;
      }
      if (this.claiming || (this.loop && !this.stopped && (await this.state.jobs.count()) > 0)) {
        this.poke();
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      return;
    }
  }

  /**
   * Stops claiming and aborts every run (their jobs stay queued for any worker, after their lease);
   * answers whether it was claiming, so that what paused it can start it again.
   */
  async stop(): Promise<boolean> {
    const claiming = this.loop !== undefined;
    this.stopped = true;
    this.poke();
    const runs = [...this.running.values()];
    for (const run of runs) run.controller.abort();
    await Promise.allSettled([...runs.map((run) => run.done), this.loop]);
    this.loop = undefined;
    return claiming;
  }

  private async claimLoop(): Promise<void> {
    while (!this.stopped) {
      while (!this.stopped && this.running.size < this.options.concurrency) {
        this.claiming++;
        try {
          const lease = await this.state.jobs
            .claim(this.id, [...this.handlers.keys()], this.options.leaseMs)
            .catch(() => undefined); // the store is unreachable: try again at the next poll
          if (!lease) break;
          // Its own running job, whose lease lapsed while the store did not answer (its renewals
          // failed): the run goes on under this claim, rather than a second run beside it. A run
          // already stopped (its lease lost) is left to settle, and this claim to lapse unrenewed:
          // a later claim runs the job, once, when nothing of it runs here any more.
          const own = this.running.get(key(lease.kind, lease.subjectId));
          if (!own) this.launch(lease);
          else if (!own.controller.signal.aborted) own.lease = lease;
        } finally {
          this.claiming--;
        }
      }
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.options.pollMs);
        timer.unref();
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = undefined;
    }
  }

  private launch(lease: JobLease): Running {
    const controller = new AbortController();
    const handler = this.handlers.get(lease.kind)!;
    const renewal = setInterval(() => {
      const sent = run.lease;
      void this.state.jobs
        .renew(sent, this.id, this.options.leaseMs)
        .then((held) => {
          // A refusal of a claim this run has since left for a newer one of its own says nothing.
          if (held || controller.signal.aborted || run.lease !== sent) return;
          this.lost++;
          run.lost = true;
          controller.abort();
        })
        .catch(() => undefined); // unreachable now; the next renewal tries again, even past the lease
    }, this.options.leaseMs / 3);
    renewal.unref();
    const started = performance.now();
    const done = handler
      .run(lease, controller.signal)
      // A job reports its failures in its own row; one that met a store unavailable is put off.
      .then(
        () => true,
        (err: unknown) =>
          !isStoreUnavailable(err) ||
          (!controller.signal.aborted && this.putOff(run.lease, err, renewal, performance.now() - started)),
      )
      .then(async (settled) => {
        clearInterval(renewal);
        // A run stopped by this worker's own stop keeps its job queued for the next worker.
        if (settled && !run.lost && (!this.stopped || !controller.signal.aborted))
          await this.state.jobs.finish(lease.kind, lease.subjectId, this.id).catch(() => undefined);
      })
      .finally(() => {
        this.running.delete(key(lease.kind, lease.subjectId));
        this.poke();
      });
    const run: Running = { lease, controller, done };
    this.running.set(key(lease.kind, lease.subjectId), run);
    return run;
  }

  /**
   * Puts off a job whose run met a store unavailable, or has its handler fail it once the store
   * stayed so past the bound; true when the job is done with. A state database that cannot take
   * either keeps the job held: its lease runs out and the next claim runs it again, as after a crash.
   */
  private async putOff(
    lease: JobLease,
    err: DomainError,
    renewal: NodeJS.Timeout,
    ranMs: number,
  ): Promise<boolean> {
    clearInterval(renewal); // a renewal would hold the job past its delay
    const bound = this.options.transientRetryMs;
    const answer = await this.state.jobs
      .retryLater(lease, this.id, ranMs, (forMs) =>
        forMs < bound ? Math.min(PUT_OFF_MS.most, Math.max(PUT_OFF_MS.first, forMs)) : undefined,
      )
      .catch(() => undefined);
    if (!answer || answer.putOff) return false;
    const why = stayedUnavailable(err.message, answer.unavailableForMs);
    return this.handlers
      .get(lease.kind)!
      .giveUp(lease, why)
      .then(
        () => true,
        () => false,
      );
  }
}

const key = (kind: JobKind, subjectId: string) => `${kind}:${subjectId}`;

/** "The object store is unavailable (HTTP 503); try again shortly." -> "The object store stayed unavailable for 300 s (HTTP 503)." */
function stayedUnavailable(message: string, forMs: number): string {
  const stayed = `stayed unavailable for ${Math.round(forMs / 1000)} s`;
  const said = /^(.*) is unavailable( \(.*\))?; try again shortly\.$/.exec(message);
  return said ? `${said[1]} ${stayed}${said[2] ?? ''}.` : `The store ${stayed}: ${message}`;
}
