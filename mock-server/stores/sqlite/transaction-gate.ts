/**
 * How one SQLite connection serves an asynchronous port. node:sqlite is synchronous and the
 * connection is the process's only one, so:
 *
 *   gate.transaction(work)  one transaction at a time: BEGIN IMMEDIATE, `work` (which may await),
 *                           COMMIT, or ROLLBACK when it throws; a call from inside `work`'s async
 *                           context joins it (AsyncLocalStorage says whose context a call is in);
 *                           `hooks` hear of each begin and end before any held-back call runs
 *   gate.run(fn)            a single synchronous read or write: at once, unless another context's
 *                           transaction is open, then after it ends (so no read sees uncommitted rows)
 */
import { AsyncLocalStorage } from 'node:async_hooks';

import type { Database } from './database/node-sqlite.js';

/**
 * Told of each transaction's begin and end, synchronously: what a store keeps in memory about the
 * rows (read-memo.ts, the key cache) is mended in `ended` before any call held back by the
 * transaction runs. Mended later, after the rejection reached the store, those calls would already
 * have read what a rollback undid.
 */
export interface TransactionHooks {
  begun?(): void;
  ended?(committed: boolean): void;
}

export class TransactionGate {
  private readonly context = new AsyncLocalStorage<symbol>();
  /** The open transaction's token, and a promise that settles when it ends. */
  private open: { token: symbol; ended: Promise<void> } | undefined;
  /** The end of the last transaction queued: the next one begins after it. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly translate: (err: unknown) => unknown,
    private readonly hooks: TransactionHooks = {},
  ) {}

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.insideOpen()) return work();
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const previous = this.tail;
    this.tail = ended;
    await previous;
    const token = Symbol('transaction');
    this.open = { token, ended };
    let begun = false;
    let committed = false;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      begun = true;
      this.hooks.begun?.();
      const result = await this.context.run(token, work);
      this.db.exec('COMMIT');
      committed = true;
      return result;
    } catch (err) {
      // A COMMIT that fails on a full disk may already have ended the transaction itself.
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw this.translate(err);
    } finally {
      this.open = undefined;
      try {
        if (begun) this.hooks.ended?.(committed);
      } finally {
        // Whatever a hook does, the next transaction and every held-back call go on.
        end();
      }
      // On Node 22 an AsyncLocalStorage in use turns on promise hooks for the whole process, a cost
      // on every promise of every request (about a tenth of a GET's time); between
      // transactions nothing needs the context, so it is switched off until the next one runs.
      this.context.disable();
    }
  }

  async run<T>(fn: () => T): Promise<T> {
    while (this.open && !this.insideOpen()) await this.open.ended;
    try {
      return fn();
    } catch (err) {
      throw this.translate(err);
    }
  }

  /** Settles when every transaction queued so far has ended. */
  async closed(): Promise<void> {
    await this.tail;
  }

  private insideOpen(): boolean {
    return this.open !== undefined && this.context.getStore() === this.open.token;
  }
}
