import type { MockConfig } from '../config.js';
import type { StateStore } from '../domain/state.js';
import { openDatabase } from '../stores/sqlite/database/open-database.js';
import { SqliteStateStore } from '../stores/sqlite/sqlite-state-store.js';

/** The state store: a shared PostgreSQL when --database-url names one, else the data folder's own SQLite file. */
export async function openState(config: MockConfig, onWaiting?: (line: string) => void): Promise<StateStore> {
  // What both engines take: the bounds of the key cache and of the journal.
  const bothEngines = {
    keyCache: { maxEntries: config.keyCacheEntries, maxAgeMs: config.keyCacheMs },
    journalEntriesPerOrganization: config.journalEntriesPerOrganization,
  };
  if (config.databaseUrl !== undefined) {
    // Loaded only when asked for: a laptop's mock never loads the PostgreSQL driver.
    const { openPostgresStateStore } = await import('../stores/postgres/index.js');
    return openPostgresStateStore({
      ...bothEngines,
      url: config.databaseUrl,
      poolSize: config.databasePoolSize,
      statementTimeoutMs: config.databaseTimeoutMs,
      waitMs: config.databaseWaitMs,
      onWaiting,
    });
  }
  // The same database code runs with and without --data-dir: without it, in the temporary folder.
  return new SqliteStateStore(openDatabase(config.dataDir), bothEngines);
}
