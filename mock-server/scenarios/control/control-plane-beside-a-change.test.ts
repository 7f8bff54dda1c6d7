/**
 * Two control-plane creates of one id at once, on PostgreSQL: one is made, the other refused as it
 * would be one after the other, never a server error. Each create looks for the id, then inserts:
 * at READ COMMITTED both looked before either inserted, and the second insert met the first's row
 * in the primary key, a 500. Two moves of one clock at once both count, as one after the other:
 * each read the offset, then wrote it moved, and the later write undid the other move.
 *
 * The window is made wide, not waited for by luck: a trigger of the test's own database sleeps
 * inside the first create's insert (before its row is there), and the second is sent meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACME_ORG, HttpApi } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import type { RunningMock } from '../../server.js';

let postgres: TestPostgres;
let database: pg.Client;
let mock: RunningMock;
let operator: HttpApi;

beforeAll(async () => {
  postgres = await startTestPostgres();
  const url = await postgres.newDatabase();
  mock = await startInstantMock({ databaseUrl: url });
  operator = new HttpApi(mock.url, null);
  database = new pg.Client({ connectionString: url });
  await database.connect();
}, 120_000);
afterAll(async () => {
  await database?.end();
  await mock?.close();
  await postgres?.stop();
});

/** Makes every insert into `table` of a row `slow` holds for (by default, one named "slow") sleep first, inside its statement. */
async function slowInserts(table: string, slow = `NEW.name = '"slow"'`): Promise<void> {
  await database.query(`
    CREATE OR REPLACE FUNCTION slow_insert() RETURNS trigger AS $$
    BEGIN
      IF ${slow} THEN PERFORM pg_sleep(1.5); END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await database.query(
    `CREATE OR REPLACE TRIGGER slow_insert BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION slow_insert()`,
  );
}

/** Resolves once an insert is asleep in the trigger: the window is open. */
async function insertAsleep(): Promise<void> {
  const asleep = "SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'";
  while ((await database.query(asleep)).rowCount === 0) await sleep(20);
}

/** Sends `create` for a row named "slow", then, once its insert sleeps, for one named "fast": both answers. */
async function twoCreates(table: string, create: (name: string) => Promise<number>): Promise<number[]> {
  await slowInserts(table);
  try {
    const slow = create('slow');
    await insertAsleep();
    const fast = await create('fast');
    return [fast, await slow];
  } finally {
    await database.query(`DROP TRIGGER slow_insert ON ${table}`);
  }
}

const plan = { storage_cap_images: 10, monthly_analysis_cap: 10 };

it('two organizations created with one id at once: one is made, the other refused as a second create is', async () => {
  const id = randomUUID();
  const create = async (name: string) =>
    (await operator.call('POST', '/__mock/organizations', { id, name, plan })).status;
  const statuses = await twoCreates('organizations', create);
  expect(statuses).toEqual([200, await create('again')]);
});

it('two models added with one id at once: one is made, the other refused as a second add is', async () => {
  const id = randomUUID();
  const add = async (name: string) =>
    (
      await operator.call('POST', `/__mock/organizations/${ACME_ORG}/models`, {
        id,
        name,
        engine: 'threshold',
      })
    ).status;
  const statuses = await twoCreates('models', add);
  expect(statuses).toEqual([200, await add('again')]);
});

it('two advances of the mock clock at once both count, as one after the other', async () => {
  const DAY = 86_400_000;
  expect((await operator.call('POST', '/__mock/clock', { reset: true })).status).toBe(200);
  await slowInserts('clock_offsets', `NEW.offset_ms = ${DAY}`);
  try {
    const first = operator.call('POST', '/__mock/clock', { advance_ms: DAY });
    await insertAsleep();
    expect((await operator.call('POST', '/__mock/clock', { advance_ms: 2 * DAY })).status).toBe(200);
    expect((await first).status).toBe(200);
  } finally {
    await database.query('DROP TRIGGER slow_insert ON clock_offsets');
  }
  const clock = await operator.json<{ offset_ms: number }>('GET', '/__mock/clock');
  expect(clock.offset_ms).toBe(3 * DAY);
});
