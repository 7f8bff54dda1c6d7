/**
 * Races on the shared database proved by holding their window open, not by waiting for luck: an
 * instant mock on a throwaway PostgreSQL with a connection of the test's own to its database, on
 * which a trigger makes one chosen write sleep inside its statement (before its row is touched)
 * while the competing request is sent.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { RunningMock } from '../mock-server/server.js';
import { startInstantMock } from './instant-mock.js';
import { startTestPostgres } from './test-postgres.js';

/** How long a held write sleeps: long enough to send the competing request while it does. */
export const HELD_WRITE_MS = 1_500;

export interface MockOnPostgres {
  mock: RunningMock;
  /** The test's own connection to the mock's database. */
  database: pg.Client;
  stop(): Promise<void>;
}

export async function mockOnPostgres(): Promise<MockOnPostgres> {
  const postgres = await startTestPostgres();
  const url = await postgres.newDatabase();
  const mock = await startInstantMock({ databaseUrl: url });
  const database = new pg.Client({ connectionString: url });
  await database.connect();
  return {
    mock,
    database,
    async stop() {
      await database.end();
      await mock.close();
      await postgres.stop();
    },
  };
}

/** A condition on the row written (`R`: the new row, or the old one of a delete): its `column` reads `value`. */
export const columnIs = (column: string, value: string | number): string =>
  `to_jsonb(R) ->> '${column}' = '${value}'`;

/**
 * Makes every `event` (INSERT, or DELETE) on `table` of a row `condition` holds for sleep
 * HELD_WRITE_MS first, inside its statement; answers the undo.
 */
export async function holdWrites(
  database: pg.Client,
  table: string,
  condition: string,
  event: 'INSERT' | 'DELETE' = 'INSERT',
): Promise<() => Promise<void>> {
  const row = event === 'DELETE' ? 'OLD' : 'NEW';
  await database.query(`
    CREATE OR REPLACE FUNCTION held_write() RETURNS trigger AS $$
    DECLARE R ${table}%ROWTYPE := ${row};
    BEGIN
      IF ${condition} THEN PERFORM pg_sleep(${HELD_WRITE_MS / 1000}); END IF;
      RETURN ${row};
    END $$ LANGUAGE plpgsql`);
  await database.query(
    `CREATE OR REPLACE TRIGGER held_write BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION held_write()`,
  );
  return async () => {
    await database.query(`DROP TRIGGER IF EXISTS held_write ON ${table}`);
  };
}

/** Resolves once a held write is asleep in its trigger: the window is open. */
export async function writeAsleep(database: pg.Client): Promise<void> {
  const asleep =
    "SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query NOT LIKE '%pg_stat_activity%'";
  while ((await database.query(asleep)).rowCount === 0) await sleep(20);
}
