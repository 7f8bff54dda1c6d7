/**
 * The PostgreSQL engine of the state port, for instances that share one database:
 *
 *   openPostgresStateStore({ url }) -> PostgresStateStore     migrated, ready
 *
 * Settings and what they cost are in docs/sandbox.md ("State engines").
 */
import { DEFAULT_KEY_CACHE_LIMITS, KeyCache, type KeyCacheLimits } from '../../domain/key-cache.js';
import { Sql } from './connection.js';
import { waitForDatabase } from './database-wait.js';
import { migrate } from './migrations.js';
import { PostgresStateStore } from './postgres-state-store.js';

export { DatabaseSchemaError } from './migrations.js';
export { StoreUnavailableError } from './failures.js';
export type { PostgresStateStore } from './postgres-state-store.js';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections this instance opens at most (default 10). */
  poolSize?: number;
  /** A statement, lock waits included, that runs longer fails its request with 503 (default 15000: lock waits under load included). */
  statementTimeoutMs?: number;
  /** Waiting longer for a connection fails the request with 503 (default 10000). */
  connectionTimeoutMs?: number;
  /**
   * A transaction idle this long between two statements (its instance stalled, or its work outside
   * the database is slow) is ended by the server and its row locks released (default 30000).
   */
  idleInTransactionTimeoutMs?: number;
  /** API keys kept in memory, and for how long (exact across instances: postgres-state-store.ts). */
  keyCache?: KeyCacheLimits;
  /** Requests the journal keeps per organization, newest first (default 1000). */
  journalEntriesPerOrganization?: number;
  /** How long opening keeps trying a database that does not answer (default 0: one try; database-wait.ts). */
  waitMs?: number;
  /** Told each time a try failed and another follows. */
  onWaiting?: (line: string) => void;
}

export async function openPostgresStateStore(options: PostgresStoreOptions): Promise<PostgresStateStore> {
  const sql = new Sql({
    url: options.url,
    poolSize: options.poolSize ?? 10,
    statementTimeoutMs: options.statementTimeoutMs ?? 15_000,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 10_000,
    idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs ?? 30_000,
  });
  try {
    await waitForDatabase(() => migrate(sql), {
      url: options.url,
      waitMs: options.waitMs ?? 0,
      report: options.onWaiting ?? (() => {}),
    });
  } catch (error) {
    await sql.close();
    throw error;
  }
  const keyCache = new KeyCache(options.keyCache ?? DEFAULT_KEY_CACHE_LIMITS);
  return new PostgresStateStore(sql, options.journalEntriesPerOrganization ?? 1000, keyCache);
}
