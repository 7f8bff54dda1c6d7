/**
 * The pool's waits, as the instance's metrics read them (`poolUse`): a transaction that finds every
 * connection busy waits and is counted; one that finds a free connection is not.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { eventually } from '../../../test-support/launched-mock.js';
import { openPostgresStateStore } from './index.js';
import type { PostgresStateStore } from './postgres-state-store.js';

let postgres: TestPostgres;
let store: PostgresStateStore;

beforeAll(async () => {
  postgres = await startTestPostgres();
  store = await openPostgresStateStore({ url: await postgres.newDatabase(), poolSize: 1 });
});
afterAll(async () => {
  await store?.close();
  await postgres?.stop();
});

it('counts a transaction that waited for the one connection, and shows it waiting meanwhile', async () => {
  await store.clockOffsets.get('warm'); // the pool's one connection, made and idle
  const before = store.poolUse().waits;
  await store.clockOffsets.get('free');
  expect(store.poolUse().waits).toBe(before);

  let release!: () => void;
  const held = store.transaction(() => new Promise<void>((resolve) => (release = resolve)));
  await eventually(() => release !== undefined, 5_000);
  const waiting = store.clockOffsets.get('queued');
  expect(await eventually(() => store.poolUse().waiting === 1, 5_000)).toBe(true);
  release();
  await Promise.all([held, waiting]);
  expect(store.poolUse()).toEqual({ waiting: 0, waits: before + 1 });
});
