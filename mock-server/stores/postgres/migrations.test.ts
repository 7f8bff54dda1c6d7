import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { Sql } from './connection.js';
import { MIGRATIONS } from '../tables/migrations.js';
import { DatabaseSchemaError, migrate, openPostgresStateStore } from './index.js';
import { clientText } from '../tables/client-text.js';
import {
  expectCopiedIntoTables,
  SETTINGS_BEFORE_STEP_5,
} from '../../../test-support/settings-before-typed-tables.js';

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
    expect(await version(url)).toBe(MIGRATIONS.length);
  });

  it('run once when several instances open a new database at the same moment', async () => {
    const url = await postgres.newDatabase();
    const steps = ['CREATE TABLE probe (n integer); INSERT INTO probe VALUES (1)'];
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
      await migrate(sql, ['CREATE TABLE probe (n integer)']);
      await migrate(sql, ['CREATE TABLE probe (n integer)', 'INSERT INTO probe VALUES (2)']);
      await expect(
        migrate(sql, [
          'CREATE TABLE probe (n integer)',
          'INSERT INTO probe VALUES (2)',
          'INSERT INTO nowhere VALUES (3)',
        ]),
      ).rejects.toThrow(/nowhere/);
      expect(await sql.column('SELECT n FROM probe')).toEqual([2]);
      expect(await version(url)).toBe(2);
    } finally {
      await sql.close();
    }
  });

  it('turn the leases of a version 3 database into epoch milliseconds', async () => {
    const url = await postgres.newDatabase();
    const sql = connect(url);
    try {
      await migrate(sql, MIGRATIONS.slice(0, 3));
      await sql.rows(
        "INSERT INTO jobs (kind, subject_id, holder, lease_until) VALUES ('prediction', 'p', 'w', '2026-11-27T00:00:00Z')",
      );
      await migrate(sql);
      expect(await sql.column('SELECT lease_until::text FROM jobs')).toEqual([
        String(Date.parse('2026-11-27T00:00:00Z')),
      ]);
    } finally {
      await sql.close();
    }
  });

  it("copy a version 4 database's settings into their tables, and drop settings", async () => {
    const url = await postgres.newDatabase();
    const sql = connect(url);
    try {
      await migrate(sql, MIGRATIONS.slice(0, 4));
      for (const [key, value] of SETTINGS_BEFORE_STEP_5)
        await sql.rows('INSERT INTO settings (key, value) VALUES ($1, $2)', [key, clientText(value)]);
    } finally {
      await sql.close();
    }
    const store = await openPostgresStateStore({ url });
    try {
      await expectCopiedIntoTables(store);
    } finally {
      await store.close();
    }
    const after = connect(url);
    try {
      expect(
        await after.column("SELECT count(*)::integer FROM pg_tables WHERE tablename = 'settings'"),
      ).toEqual([0]);
    } finally {
      await after.close();
    }
  });

  it("keep a version 8 database's journal, each entry a run of its own, newest first", async () => {
    const url = await postgres.newDatabase();
    const sql = connect(url);
    const entry = (i: number) => ({
      requestId: `r${i}`,
      operationId: 'getImage',
      organizationId: 'org-1',
      status: 200,
    });
    try {
      await migrate(sql, MIGRATIONS.slice(0, 8));
      for (const i of [1, 2])
        await sql.rows(
          'INSERT INTO journal (operation_id, organization_id, status, entry) VALUES ($1, $2, 200, $3)',
          [clientText('getImage'), clientText('org-1'), JSON.stringify(entry(i))],
        );
    } finally {
      await sql.close();
    }
    const store = await openPostgresStateStore({ url });
    try {
      expect(await store.journal.query({ organizationId: 'org-1', operationId: 'getImage' })).toEqual([
        entry(2),
        entry(1),
      ]);
    } finally {
      await store.close();
    }
  });

  it('refuse a database newer than the code, saying so', async () => {
    const url = await postgres.newDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(
      'CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (99)',
    );
    await admin.end();
    const opening = openPostgresStateStore({ url });
    await expect(opening).rejects.toBeInstanceOf(DatabaseSchemaError);
    await expect(opening).rejects.toThrow(`schema version 99, newer than this mock's ${MIGRATIONS.length}`);
  });
});
