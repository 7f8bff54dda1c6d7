/**
 * The PostgreSQL engine of the state port, for instances that share one database:
 *
 *   openPostgresStateStore({ url }) -> PostgresStateStore     migrated, ready
 *   migrate(sql)      brings the database to the schema's latest step (stores/tables/migrate.ts),
 *                     or refuses one newer than this code with a clear error
 *
 * Settings and what they cost are in docs/sandbox.md ("State engines").
 */
import { DEFAULT_KEY_CACHE_LIMITS, KeyCache, type KeyCacheLimits } from '../../domain/key-cache.js';
import { POSTGRES } from '../tables/dialect.js';
import { migration, refusalText } from '../tables/migrate.js';
import { type Schema, SCHEMA } from '../tables/migrations.js';
import { perform } from './answer.js';
import { type ConnectionSettings, Sql } from './connection.js';
import { DatabaseStartError, type DatabaseWait, waitForDatabase } from './database-wait.js';
import { PostgresStateStore } from './postgres-state-store.js';

export { StoreUnavailableError } from './failures.js';
export type { PostgresStateStore } from './postgres-state-store.js';

export interface PostgresStoreOptions extends Partial<ConnectionSettings>, DatabaseWait {
  url: string;
  /** API keys kept in memory, and for how long (exact across instances: postgres-state-store.ts). */
  keyCache?: KeyCacheLimits;
  /** Requests the journal keeps per organization, newest first (default 1000). */
  journalEntriesPerOrganization?: number;
}

export async function openPostgresStateStore(options: PostgresStoreOptions): Promise<PostgresStateStore> {
  const sql = new Sql({
    url: options.url,
    poolSize: options.poolSize ?? 10,
    // Lock waits under load included.
    statementTimeoutMs: options.statementTimeoutMs ?? 15_000,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 10_000,
    idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs ?? 30_000,
  });
  try {
    await waitForDatabase(() => migrate(sql), options);
  } catch (error) {
    await sql.close();
    throw error;
  }
  const keyCache = new KeyCache(options.keyCache ?? DEFAULT_KEY_CACHE_LIMITS);
  return new PostgresStateStore(sql, options.journalEntriesPerOrganization ?? 1000, keyCache);
}

/** A database this build cannot use: a start error, said in one line as the others are. */
export class DatabaseSchemaError extends DatabaseStartError {}

export async function migrate(sql: Sql, schema: Schema = SCHEMA): Promise<void> {
  await perform(sql)(
    migration(
      POSTGRES,
      schema,
      (version) =>
        new DatabaseSchemaError(
          refusalText(schema, version, {
            database: 'the PostgreSQL database',
            another: 'another database',
            elsewhere: 'point --database-url at another database',
          }),
        ),
    ),
  );
}
