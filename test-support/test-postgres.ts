/**
 * PostgreSQL for a test file: one throwaway server (sandbox/throwaway-postgres.ts) per file, and a
 * fresh database from it whenever a test wants one. Never skipped: where PostgreSQL is not
 * installed, starting it fails with the message naming Debian's package.
 */
import pg from 'pg';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../sandbox/throwaway-postgres.js';

export interface TestPostgres {
  readonly server: ThrowawayPostgres;
  /** The URL of a new, empty database on the server. */
  newDatabase(): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const server = await startThrowawayPostgres();
  let made = 0;
  return {
    server,
    async newDatabase() {
      const name = `test_${++made}`;
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
        // These tests prove behaviour, not durability (the server keeps fsync on for the crash
        // proofs): a commit that waits for no flush saves about half of their time.
        await client.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
      } finally {
        await client.end();
      }
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      return url.toString();
    },
    stop: () => server.stop(),
  };
}
