import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js';

describe('a throwaway PostgreSQL', () => {
  let server: ThrowawayPostgres;
  beforeAll(async () => {
    server = await startThrowawayPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it('serves its own database on 127.0.0.1 with fsync and synchronous commit on', async () => {
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    const [row] = await query<{ db: string; fsync: string; commit: string }>(
      "SELECT current_database() AS db, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS commit",
    );
    expect(row).toEqual({ db: 'cellseg', fsync: 'on', commit: 'on' });
    expect(existsSync(server.logFile)).toBe(true);
  });

  it('refuses a connection without its password', async () => {
    const url = new URL(server.url);
    url.password = 'wrong';
    const client = new pg.Client({ connectionString: url.toString() });
    await expect(client.connect()).rejects.toThrow(/password authentication failed/);
  });

  it('restarts keeping committed data, refusing connections while down', async () => {
    await query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
    let refusedWhileDown: unknown;
    await server.restart(async () => {
      refusedWhileDown = await query('SELECT 1').catch((error: Error) => error);
    });
    expect(refusedWhileDown).toBeInstanceOf(Error);
    expect(await query('SELECT n FROM kept')).toEqual([{ n: 7 }]);
  });

  it('removes its folder when stopped', async () => {
    const other = await startThrowawayPostgres();
    const dir = path.dirname(other.logFile);
    expect(existsSync(dir)).toBe(true);
    await other.stop();
    expect(existsSync(dir)).toBe(false);
  });
});
