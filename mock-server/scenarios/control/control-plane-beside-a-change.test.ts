/**
 * Two control-plane creates of one id at once, on PostgreSQL: one is made, the other refused as it
 * would be one after the other, never a server error. Each create looks for the id, then inserts:
 * at READ COMMITTED both looked before either inserted, and the second insert met the first's row
 * in the primary key, a 500. Two moves of one clock at once both count, as one after the other:
 * each read the offset, then wrote it moved, and the later write undid the other move.
 *
 * Each window is held open (test-support/held-open.ts): the first create's insert sleeps before its
 * row is there, and the second is sent meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACME_ORG, HttpApi } from '../../../test-support/api-client.js';
import {
  holdWrites,
  mockOnPostgres,
  type MockOnPostgres,
  writeAsleep,
} from '../../../test-support/held-open.js';

let sandbox: MockOnPostgres;
let operator: HttpApi;

beforeAll(async () => {
  sandbox = await mockOnPostgres();
  operator = new HttpApi(sandbox.mock.url, null);
}, 120_000);
afterAll(() => sandbox?.stop());

/** Sends `create` for a row named "slow", then, once its insert sleeps, for one named "fast": both answers. */
async function twoCreates(table: string, create: (name: string) => Promise<number>): Promise<number[]> {
  const release = await holdWrites(sandbox.database, table, `R.name = '"slow"'`);
  try {
    const slow = create('slow');
    await writeAsleep(sandbox.database);
    const fast = await create('fast');
    return [fast, await slow];
  } finally {
    await release();
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
  const release = await holdWrites(sandbox.database, 'clock_offsets', `R.offset_ms = ${DAY}`);
  try {
    const first = operator.call('POST', '/__mock/clock', { advance_ms: DAY });
    await writeAsleep(sandbox.database);
    expect((await operator.call('POST', '/__mock/clock', { advance_ms: 2 * DAY })).status).toBe(200);
    expect((await first).status).toBe(200);
  } finally {
    await release();
  }
  const clock = await operator.json<{ offset_ms: number }>('GET', '/__mock/clock');
  expect(clock.offset_ms).toBe(3 * DAY);
});
