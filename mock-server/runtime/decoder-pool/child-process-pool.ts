/**
 * A pool of child processes that run jobs from one tasks module (child-main.ts loads it), one job
 * per child at a time. What a child does cannot take the server with it: it has its own memory
 * ceiling (child-command.ts) and a time budget per job; a child that dies or runs out of time
 * fails only the job it held, with DecoderCrashed, and a new child takes its place.
 *
 *   const pool = new ChildProcessPool({ tasksModule, size: 2, memoryCeilingBytes, timeBudgetMs });
 *   await pool.run('convert', payload, signal);     // the task's result, or its error
 *   await pool.recycle();                           // fresh children (after a reset)
 *   await pool.close();
 *
 * Why our own pool over fork() and not tinypool's child_process runtime or piscina: piscina runs
 * threads only, and a thread that aborts in native code aborts the server. Tinypool's process
 * runtime has no per-job time budget or memory ceiling and does not tell a crashed child from a
 * failed job; each of those would be wrapped around it anyway, and what remains is the queue.
 * Children are started when jobs arrive and stop after `idleMs` unused.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatCount } from '../../engines/raster/tiff-error.js';
import { childCommand } from './child-command.js';
import { DecoderCrashed, DecoderTaskError } from './decoder-crashed.js';
import { MEMORY_CEILING_ENV, type FromChild, type ToChild } from './protocol.js';

export interface ChildProcessPoolOptions {
  /** File URL or path of the module whose `tasks` table the children run. */
  tasksModule: string | URL;
  /** Children at most. */
  size: number;
  /** Native and V8 memory of one child, bytes. */
  memoryCeilingBytes: number;
  /** Longest a job may run before its child is killed. */
  timeBudgetMs: number;
  /** An idle child stops after this long. Default 60 s. */
  idleMs?: number;
  /** A cancelled job whose child has not stopped it after this long is killed with its child. */
  cancelGraceMs?: number;
  /** Where the children's own stderr goes (their report of running out of memory aside). Default process.stderr. */
  stderr?: NodeJS.WritableStream;
}

interface Job {
  id: number;
  task: string;
  payload: unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
  timers: NodeJS.Timeout[];
  /** Already given a fresh child once after running out of memory in a used one. */
  retried?: boolean;
}

interface Slot {
  proc: ChildProcess;
  ready: boolean;
  job?: Job;
  /** Why the pool killed it, when it did. */
  killedFor?: 'timeout' | 'cancel' | 'retire';
  /** Jobs handed to it so far, the one running included. */
  jobsRun: number;
  idleTimer?: NodeJS.Timeout;
}

/**
 * The first line of V8's report of a heap that ran out (the last GCs, then the JS and native
 * stacks), and the fatal line that starts it when no GC is shown. A child held to its ceiling
 * by a hostile file ends that way on purpose: the job fails with the reason in words, so the
 * report, a page of native addresses per file, is left out of the server's stderr. Anything else
 * a child writes there goes through, line by line.
 */
const OUT_OF_MEMORY_REPORT = /^<--- Last few GCs --->|^FATAL ERROR: .*(heap|Allocation failed|out of memory)/;

function passStderr(proc: ChildProcess, sink: NodeJS.WritableStream): void {
  if (!proc.stderr) return;
  let dying = false;
  createInterface({ input: proc.stderr, crlfDelay: Infinity }).on('line', (line) => {
    dying ||= OUT_OF_MEMORY_REPORT.test(line);
    if (!dying) sink.write(`${line}\n`);
  });
}

// Run from the sources (tests, tsx) the sibling is child-main.ts; built into dist/, child-main.js.
const OWN_CHILD_MAIN = new URL(`./child-main${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
const START_FAILURES_TOLERATED = 3;

export class ChildProcessPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private startFailures = 0;
  private readonly tasksUrl: string;
  private readonly entry: { childMain: string; typeScript: boolean };

  constructor(private readonly options: ChildProcessPoolOptions) {
    const m = options.tasksModule;
    this.tasksUrl = m instanceof URL ? m.href : m.startsWith('file:') ? m : pathToFileURL(m).href;
    this.entry = childEntry(this.tasksUrl);
  }

  run<T = unknown>(task: string, payload: unknown, signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the decoder pool is closed'));
    if (signal?.aborted) return Promise.reject(abortError());
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        task,
        payload,
        resolve: resolve as (v: unknown) => void,
        reject,
        signal,
        timers: [],
      };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Replaces every child, so a reset hands back what their heaps and libvips grew to. */
  async recycle(): Promise<void> {
    for (const slot of [...this.slots]) {
      // A busy child stops when its job ends.
      if (slot.job) slot.killedFor = 'retire';
      else await this.stop(slot, 'retire');
    }
    this.dispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0))
      this.settle(job, () => job.reject(new Error('the decoder pool is closed')));
    await Promise.all([...this.slots].map((slot) => this.stop(slot, 'retire')));
  }

  /** Children alive, children running a job and jobs waiting for one, for the instance's metrics. */
  get use(): { children: number; busy: number; queued: number } {
    let busy = 0;
    for (const slot of this.slots) if (slot.job) busy++;
    return { children: this.slots.size, busy, queued: this.queue.length };
  }

  /** Children alive now (for tests and logs). */
  get childPids(): number[] {
    return [...this.slots].map((s) => s.proc.pid!).filter(Boolean);
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (!this.queue.length) break;
      if (slot.ready && !slot.job && !slot.killedFor) this.assign(slot, this.queue.shift()!);
    }
    const starting = [...this.slots].filter((s) => !s.ready).length;
    const size = Math.max(1, Math.floor(this.options.size));
    let missing = Math.min(this.queue.length - starting, size - this.slots.size);
    while (missing-- > 0) this.spawn();
  }

  private assign(slot: Slot, job: Job): void {
    clearTimeout(slot.idleTimer);
    slot.job = job;
    slot.jobsRun++;
    holdProcessOpen(slot.proc, true);
    const budget = this.options.timeBudgetMs;
    job.timers.push(
      setTimeout(() => {
        slot.killedFor = 'timeout';
        slot.proc.kill('SIGKILL');
      }, budget),
    );
    this.send(slot, { type: 'run', id: job.id, task: job.task, payload: job.payload });
  }

  private spawn(): void {
    const { execPath, execArgv } = childCommand(this.options.memoryCeilingBytes, this.entry.typeScript);
    const proc = fork(this.entry.childMain, [this.tasksUrl], {
      execPath,
      execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, [MEMORY_CEILING_ENV]: String(this.options.memoryCeilingBytes) },
    });
    const slot: Slot = { proc, ready: false, jobsRun: 0 };
    this.slots.add(slot);
    passStderr(proc, this.options.stderr ?? process.stderr);
    proc.on('message', (m) => this.onMessage(slot, m as FromChild));
    proc.on('error', () => undefined); // followed by 'exit', which settles the job
    proc.once('exit', (code, signal) => this.onExit(slot, code, signal));
  }

  private onMessage(slot: Slot, message: FromChild): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.startFailures = 0;
      this.idle(slot);
      return;
    }
    const job = slot.job;
    if (!job || job.id !== message.id) return;
    slot.job = undefined;
    if (message.type === 'failed' && message.retire) {
      slot.killedFor = 'retire';
      if (slot.jobsRun > 1 && !job.retried && !job.signal?.aborted) {
        // Out of memory in a child that had run other files: what those left behind (heap, malloc
        // arenas, thread stacks) may be what failed, and one file must not fail for another. It
        // runs once more, first in line, in a fresh child; out of memory there, it fails.
        job.retried = true;
        for (const t of job.timers) clearTimeout(t);
        job.timers = [];
        this.queue.unshift(job);
        void this.stop(slot, 'retire'); // its exit starts the fresh child (onExit -> dispatch)
        return;
      }
    }
    if (job.signal?.aborted) {
      // cancelled while the child was busy in synchronous work: the caller asked for no result
      this.settle(job, () => job.reject(abortError()));
    } else if (message.type === 'done') this.settle(job, () => job.resolve(message.result));
    else {
      const { name, message: text, kind } = message.error;
      const err = name === 'AbortError' ? abortError() : new DecoderTaskError(name, text, kind);
      this.settle(job, () => job.reject(err));
    }
    if (slot.killedFor === 'retire' || slot.killedFor === 'cancel') void this.stop(slot, slot.killedFor);
    else this.idle(slot);
  }

  private idle(slot: Slot): void {
    if (this.queue.length) return this.dispatch();
    // An idle child must not keep the server's process alive; a starting or busy one does.
    holdProcessOpen(slot.proc, false);
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (!slot.job) void this.stop(slot, 'retire');
    }, this.options.idleMs ?? 60_000);
    slot.idleTimer.unref();
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(slot.idleTimer);
    this.slots.delete(slot);
    const job = slot.job;
    if (!slot.ready && !slot.killedFor && ++this.startFailures >= START_FAILURES_TOLERATED) {
      // the children cannot start at all: fail what waits rather than respawn forever; each new
      // job tries one child again
      const err = new Error(`the decoder processes cannot start (last exit: ${signal ?? `code ${code}`})`);
      for (const queued of this.queue.splice(0)) this.settle(queued, () => queued.reject(err));
    }
    if (job) {
      const err =
        slot.killedFor === 'cancel'
          ? abortError()
          : slot.killedFor === 'retire'
            ? new Error('the decoder pool was closed while this file was being read')
            : slot.killedFor === 'timeout'
              ? new DecoderCrashed(
                  `the decoder was stopped: this file took longer than ${seconds(this.options.timeBudgetMs)} to read, this server's time limit for one file`,
                )
              : new DecoderCrashed(
                  `the decoder process stopped (${signal ?? `exit code ${code}`}) while reading this file: it needs more than this server's memory limit of ${formatCount(this.options.memoryCeilingBytes / 1024 ** 2)} MiB for one decoder, or it is corrupt`,
                );
      this.settle(job, () => job.reject(err));
    }
    this.dispatch();
  }

  private cancel(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(job, () => job.reject(abortError()));
      return;
    }
    const slot = [...this.slots].find((s) => s.job === job);
    if (!slot) return;
    this.send(slot, { type: 'cancel', id: job.id });
    job.timers.push(
      setTimeout(() => {
        if (slot.job !== job) return;
        slot.killedFor = 'cancel';
        slot.proc.kill('SIGKILL');
      }, this.options.cancelGraceMs ?? 5000),
    );
  }

  private settle(job: Job, finish: () => void): void {
    for (const t of job.timers) clearTimeout(t);
    job.timers = [];
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    finish();
  }

  private send(slot: Slot, message: ToChild): void {
    try {
      slot.proc.send(message);
    } catch {
      slot.proc.kill('SIGKILL'); // its channel is gone; 'exit' settles the job
    }
  }

  private stop(slot: Slot, why: Slot['killedFor']): Promise<void> {
    slot.killedFor ??= why;
    if (slot.proc.exitCode !== null || slot.proc.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => slot.proc.once('exit', () => resolve()));
    holdProcessOpen(slot.proc, true); // whoever awaits the stop must see it, not an empty event loop
    slot.proc.kill('SIGKILL');
    return exited;
  }
}

function holdProcessOpen(proc: ChildProcess, hold: boolean): void {
  // The stderr pipe is a socket of its own: left referenced, an idle child would hold the server open.
  const stderr = proc.stderr as (NodeJS.ReadableStream & { ref?(): void; unref?(): void }) | null;
  const how = hold ? 'ref' : 'unref';
  proc[how]();
  proc.channel?.[how]();
  stderr?.[how]?.();
}

function abortError(): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} s` : `${ms} ms`;
}

/**
 * The child's entry for a tasks module. A JavaScript tasks module from a build runs under the
 * build's child-main.js beside it, on Node alone, even when the pool itself runs from the sources
 * (decoder-pools.ts names the build's tasks when it is current): through tsx's loader a child
 * costs about 0.4 s of CPU and half a second before it is ready, since each child compiles the
 * TypeScript again; the bundled one about 0.1 s. A TypeScript tasks module (a test's) needs the
 * loader, and so does this pool's own child-main.ts.
 */
function childEntry(tasksUrl: string): { childMain: string; typeScript: boolean } {
  const builtChildMain = new URL('./child-main.js', tasksUrl);
  if (tasksUrl.endsWith('.js') && existsSync(builtChildMain))
    return { childMain: fileURLToPath(builtChildMain), typeScript: false };
  return {
    childMain: fileURLToPath(OWN_CHILD_MAIN),
    typeScript: OWN_CHILD_MAIN.pathname.endsWith('.ts') || tasksUrl.endsWith('.ts'),
  };
}
