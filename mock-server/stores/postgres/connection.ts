/**
 * The pool of connections to PostgreSQL and the transactions on it:
 *
 *   sql.rows(text, params)     (sql.changes: how many rows a write changed) runs in the caller's transaction if there is one (found through
 *                              AsyncLocalStorage, however deep the call), else on the pool (autocommit);
 *                              a read (SELECT) is a named statement, parsed and planned once per
 *                              connection instead of on every call
 *   sql.transaction(work)      BEGIN, work, COMMIT on one connection; a nested call joins the outer
 *                              one; a race lost (serialization failure, deadlock, a guard index
 *                              filled first) reruns `work` from the start, a few times
 *   sql.withinRequest(scope, work)
 *                              runs one request's `work` with `scope` found by every call it makes
 *                              (the database snapshot its reads may be answered under: snapshot-memo.ts)
 *   sql.writeEpoch             changes when a write of this instance begins and when it ends
 *
 * Transactions run at READ COMMITTED, not SERIALIZABLE: every rule that must hold across instances
 * has its own exact guard (the organization's row lock before a cap check, partial unique indexes,
 * SKIP LOCKED claims, conditional UPDATEs; docs/sandbox.md), so nothing is left for SERIALIZABLE to
 * catch, and it would fail and rerun every pair of requests that merely read what the other
 * writes (two uploads of one organization), with their file work, for no gain.
 *
 * Every failure leaves as the domain's error (failures.ts): a database that is down or too slow
 * becomes StoreUnavailableError after at most the connection or statement timeout, never a hang.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Row } from '../tables/work.js';
import { asDomainFailure, isRetryable } from './failures.js';

/** What each costs, and each default (index.ts), is in docs/sandbox.md ("State engines"). */
export interface ConnectionSettings {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections this instance opens at most. */
  poolSize: number;
  /** A statement (a lock wait included) that runs longer is cancelled and its request fails with 503. */
  statementTimeoutMs: number;
  /** Waiting longer for a connection (a new one, or a free one of the pool) fails the request with 503. */
  connectionTimeoutMs: number;
  /**
   * A transaction idle this long between two statements (its instance stalled, or its work outside
   * the database is slow) is ended by the server and its row locks released.
   */
  idleInTransactionTimeoutMs: number;
}

interface TransactionContext {
  client: pg.PoolClient;
  /** Set once COMMIT or ROLLBACK ran: late calls of work it started go to the pool instead. */
  ended: boolean;
}

/** What one request's reads may be answered from: set by the first read of the versions (request-reads.ts). */
export interface RequestScope {
  /** The database's snapshot (pg_current_snapshot) as that read saw it. */
  snapshot?: string;
  /** When that read was sent, in this instance's order of sending: the larger, the newer. */
  sentAt?: number;
}

/** What a call finds in its async context: the transaction it joins, or the request it serves. */
interface Scope {
  transaction?: TransactionContext;
  request?: RequestScope;
}

const RERUNS = 4;

export class Sql {
  private readonly pool: pg.Pool;
  private readonly current = new AsyncLocalStorage<Scope>();
  private epoch = 0;
  /** The name each read's text is prepared under (the texts are the code's own: a bounded set). */
  private readonly statementNames = new Map<string, string>();
  /** Callers that found every connection of the pool busy and waited for one, since start. */
  private waits = 0;
  private readonly poolSize: number;
  private readonly clientConfig: pg.ClientConfig;
  /** How long a statement, a lock wait included, may run. */
  readonly statementTimeoutMs: number;

  constructor(settings: ConnectionSettings) {
    this.poolSize = settings.poolSize;
    this.statementTimeoutMs = settings.statementTimeoutMs;
    this.clientConfig = {
      connectionString: settings.url,
      connectionTimeoutMillis: settings.connectionTimeoutMs,
      statement_timeout: settings.statementTimeoutMs,
      // The server's timeout cannot fire when the server is gone: the driver's own bounds the wait.
      query_timeout: settings.statementTimeoutMs + settings.connectionTimeoutMs,
      // A transaction whose instance stalls mid-way releases its row locks for the others.
      idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
      keepAlive: true,
    };
    this.pool = new pg.Pool({ ...this.clientConfig, max: settings.poolSize });
    // A connection the server dropped while idle in the pool (a restart) is discarded by the pool;
    // without a listener the event would end the process.
    this.pool.on('error', () => {});
  }

  async rows(text: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.result(text, params)).rows as Row[];
  }

  /** Runs a write; answers how many rows it changed. */
  async changes(text: string, params: unknown[] = []): Promise<number> {
    return (await this.result(text, params)).rowCount ?? 0;
  }

  private async result(text: string, params: unknown[]): Promise<pg.QueryResult> {
    const context = this.current.getStore()?.transaction;
    const name = this.statementName(text);
    // A statement that is not a plain read may write: what was read before it may be stale after.
    if (name === undefined) this.epoch++;
    try {
      const client = context && !context.ended ? context.client : this.pool;
      if (client === this.pool) this.countWait();
      return await (name ? client.query({ name, text, values: params }) : client.query(text, params));
    } catch (error) {
      // Inside a transaction the raw error goes up to transaction(), which decides on a rerun.
      throw context && !context.ended ? error : asDomainFailure(error);
    } finally {
      if (name === undefined) this.epoch++;
    }
  }

  /**
   * Changes when a statement of this instance that may write is sent and when it is answered, so a
   * read kept under one value may have missed a write of this instance once the value moves on.
   */
  get writeEpoch(): number {
    return this.epoch;
  }

  /**
   * Runs `work`, and every call it makes however deep, with `scope` as the request's own. The scope
   * ends with `work`: what it started and left running (a job) reads the database from then on,
   * not what is kept under a snapshot that may by then be long past.
   */
  async withinRequest<T>(scope: RequestScope, work: () => Promise<T>): Promise<T> {
    try {
      return await this.current.run({ request: scope }, work);
    } finally {
      scope.snapshot = undefined;
    }
  }

  /** The scope of the request the caller serves; none inside a transaction, which has a scope of its own. */
  requestScope(): RequestScope | undefined {
    return this.current.getStore()?.request;
  }

  /** The first column of every row. */
  async column<T = string>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.rows(text, params)).map((row) => Object.values(row)[0] as T);
  }

  private statementName(text: string): string | undefined {
    let name = this.statementNames.get(text);
    if (name === undefined && /^\s*SELECT\b/i.test(text)) {
      name = `read_${this.statementNames.size + 1}`;
      this.statementNames.set(text, name);
    }
    return name;
  }

  /** Waiting for a connection now and waits since start, for the instance's metrics. */
  poolUse(): { waiting: number; waits: number } {
    return { waiting: this.pool.waitingCount, waits: this.waits };
  }

  private countWait(): void {
    if (this.pool.idleCount === 0 && this.pool.totalCount >= this.poolSize) this.waits++;
  }

  inTransaction(): boolean {
    const context = this.current.getStore()?.transaction;
    return context !== undefined && !context.ended;
  }

  /** Runs `work` on its own, never in the caller's transaction: for writes no request waits for. */
  detached<T>(work: () => Promise<T>): Promise<T> {
    return this.current.exit(work);
  }

  /** `oneSnapshot`: a read-only transaction whose every statement sees the database as its first did. */
  async transaction<T>(work: () => Promise<T>, { oneSnapshot = false } = {}): Promise<T> {
    if (this.inTransaction()) return work();
    const begin = oneSnapshot
      ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
      : 'BEGIN ISOLATION LEVEL READ COMMITTED';
    for (let run = 1; ; run++) {
      try {
        return await this.once(work, begin);
      } catch (error) {
        if (run >= RERUNS || !isRetryable(error)) throw asDomainFailure(error);
        // A short random pause, so two transactions that collided do not collide again in step.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * run));
      }
    }
  }

  private async once<T>(work: () => Promise<T>, begin: string): Promise<T> {
    let client: pg.PoolClient;
    try {
      this.countWait();
      client = await this.pool.connect();
    } catch (error) {
      throw asDomainFailure(error);
    }
    const context: TransactionContext = { client, ended: false };
    // Its writes are seen by others from COMMIT on, after its statements were answered.
    this.epoch++;
    let broken: Error | undefined;
    // The pool listens for a connection's errors only while it is idle: one lost while work runs
    // between two queries (a restart) would end the process. Its next query fails anyway, and the
    // connection is then closed rather than handed back.
    const onLost = (error: Error) => (broken = error);
    client.on('error', onLost);
    try {
      await client.query(begin);
      const result = await this.current.run({ transaction: context }, work);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection whose ROLLBACK fails is in an unknown state: closed, not handed to the next caller.
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      this.epoch++;
      context.ended = true;
      client.off('error', onLost);
      client.release(broken);
    }
  }

  /**
   * A connection of its own, outside the pool and with its settings, for what a session holds
   * (a session-level advisory lock); its errors are the caller's to see in its next query, or in
   * its 'error' and 'end' events while it holds one and sends nothing.
   */
  async session(): Promise<pg.Client> {
    const client = new pg.Client(this.clientConfig);
    // A connection lost between two queries would otherwise end the process.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (error) {
      throw asDomainFailure(error);
    }
    return client;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
