import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { Sql } from './connection.js';
import { latestVersion } from '../tables/migrate.js';
import { SCHEMA } from '../tables/migrations.js';
import { DatabaseSchemaError, migrate, openPostgresStateStore } from './index.js';

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const connect = (url: string) =>
  new Sql({
    url,
    poolSize: 2,
    statementTimeoutMs: 30_000,
    connectionTimeoutMs: 10_000,
    idleInTransactionTimeoutMs: 30_000,
  });

async function version(url: string): Promise<number> {
  const sql = connect(url);
  try {
    return (await sql.column<number>('SELECT version FROM schema_version'))[0];
  } finally {
    await sql.close();
  }
}

describe("PostgreSQL's migrations", () => {
  it('build a new database to the latest version on open', async () => {
    const url = await postgres.newDatabase();
    const store = await openPostgresStateStore({ url });
    await store.close();
    expect(await version(url)).toBe(latestVersion(SCHEMA));
  });

  it('run once when several instances open a new database at the same moment', async () => {
    const url = await postgres.newDatabase();
    const steps = { first: 1, steps: ['CREATE TABLE probe (n integer); INSERT INTO probe VALUES (1)'] };
    const instances = Array.from({ length: 5 }, () => connect(url));
    try {
      await Promise.all(instances.map((sql) => migrate(sql, steps)));
      expect(await instances[0].column('SELECT count(*)::integer FROM probe')).toEqual([1]);
    } finally {
      await Promise.all(instances.map((sql) => sql.close()));
    }
  });

  it('run only the steps a database lacks, and leave it as it was when a step fails', async () => {
    const url = await postgres.newDatabase();
    const sql = connect(url);
    try {
      const schema = (...steps: string[]) => ({ first: 1, steps });
      await migrate(sql, schema('CREATE TABLE probe (n integer)'));
      await migrate(sql, schema('CREATE TABLE probe (n integer)', 'INSERT INTO probe VALUES (2)'));
      await expect(
        migrate(
          sql,
          schema(
            'CREATE TABLE probe (n integer)',
            'INSERT INTO probe VALUES (2)',
            'INSERT INTO nowhere VALUES (3)',
          ),
        ),
      ).rejects.toThrow(/nowhere/);
      expect(await sql.column('SELECT n FROM probe')).toEqual([2]);
      expect(await version(url)).toBe(2);
    } finally {
      await sql.close();
    }
  });

  it("give a database the nine steps built step 9's names, and take no step twice", async () => {
    const url = await postgres.newDatabase();
    const sql = connect(url);
    const names = () =>
      sql.column(
        "SELECT relname::text FROM pg_class WHERE relname LIKE 'jobs\\_%' OR relname LIKE 'journal\\_%' ORDER BY 1",
      );
    try {
      // Step 9 alone, then the objects named as the nine steps named them.
      await migrate(sql, { first: SCHEMA.first, steps: SCHEMA.steps.slice(0, 1) });
      await sql.rows(
        `ALTER INDEX jobs_in_order RENAME TO jobs_by_age;
         ALTER TABLE journal RENAME CONSTRAINT journal_pkey TO journal_runs_pkey;
         ALTER SEQUENCE journal_seq_seq RENAME TO journal_runs_seq_seq`,
      );
      await migrate(sql);
      const after = await names();
      expect(after).toEqual(expect.arrayContaining(['jobs_in_order', 'journal_pkey', 'journal_seq_seq']));
      expect(after.filter((name) => /by_age|journal_runs/.test(name))).toEqual([]);
      expect(await version(url)).toBe(latestVersion(SCHEMA));
    } finally {
      await sql.close();
    }
  });

  /** Opening a database that records `version`, refused with the message `expected`. */
  async function expectRefused(version: number, expected: string): Promise<void> {
    const url = await postgres.newDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(
      `CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (${version})`,
    );
    await admin.end();
    const opening = openPostgresStateStore({ url });
    await expect(opening).rejects.toBeInstanceOf(DatabaseSchemaError);
    await expect(opening).rejects.toThrow(expected);
  }

  it('refuse a database from before the first step, saying how to carry its state across', () =>
    expectRefused(
      SCHEMA.first - 1,
      `schema version ${SCHEMA.first - 1}, from before this mock's first (${SCHEMA.first}): take a snapshot with the mock that wrote it`,
    ));

  it('refuse a database newer than the code, saying so', () =>
    expectRefused(99, `schema version 99, newer than this mock's ${latestVersion(SCHEMA)}`));
});
