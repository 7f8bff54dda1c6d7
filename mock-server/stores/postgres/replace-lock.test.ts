/**
 * The replacement of the whole state on a shared database, held across instances (replace-lock.ts):
 * two stores on one database stand for two instances. The second waits for the first; a holder whose
 * session dies (its instance killed) lets it go at once, and is told: its replacement fails with
 * store_unavailable; a wait past the statement timeout answers store_unavailable, naming the setting.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import type { DomainError } from '../../domain/errors.js';
import { openPostgresStateStore, type PostgresStateStore } from './index.js';

let postgres: TestPostgres;
let url: string;
let one: PostgresStateStore;
let two: PostgresStateStore;

beforeAll(async () => {
  postgres = await startTestPostgres();
  url = await postgres.newDatabase();
  [one, two] = await Promise.all([1, 2].map(() => openPostgresStateStore({ url, poolSize: 2 })));
}, 120_000);
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await postgres?.stop();
});

/** Holds `store`'s replacement until `release` is called; answers once it holds it. */
async function hold(store: PostgresStateStore): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void;
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const done = store.replacing(() => {
    holding();
    return new Promise<void>((resolve) => (release = resolve));
  });
  await held;
  return { release, done };
}

const settled = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

it("another instance's replacement waits until the one under way ends", async () => {
  const first = await hold(one);
  const order: string[] = [];
  const second = two.replacing(async () => order.push('second'));
  expect(await settled(second, 300)).toBe(false);
  order.push('first ends');
  first.release();
  await first.done;
  await second;
  expect(order).toEqual(['first ends', 'second']);
});

it('a holder whose session dies lets the next one go, and its own replacement fails with store_unavailable', async () => {
  const killed = await hold(one);
  const next = two.replacing(async () => 'replaced');
  expect(await settled(next, 300)).toBe(false);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const ended = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted",
    );
    expect(ended.rowCount).toBe(1);
  } finally {
    await admin.end();
  }
  expect(await next).toBe('replaced');
  killed.release();
  const failed = (await killed.done.catch((e: unknown) => e)) as DomainError;
  expect(failed.kind).toBe('store_unavailable');
  expect(failed.retryAfterSeconds).toBe(1);
  expect(failed.message).toMatch(/connection holding the lock .* was lost/);
});

it('a wait past the statement timeout answers store_unavailable, naming the setting', async () => {
  const impatient = await openPostgresStateStore({ url, poolSize: 1, statementTimeoutMs: 300 });
  const first = await hold(one);
  try {
    const refused = (await impatient.replacing(async () => 'ran').catch((e: unknown) => e)) as DomainError;
    expect(refused.kind).toBe('store_unavailable');
    expect(refused.retryAfterSeconds).toBe(1);
    expect(refused.message).toMatch(/--database-timeout-ms \(300 ms\)/);
  } finally {
    first.release();
    await first.done;
    await impatient.close();
  }
});

it("a wait behind this instance's own replacement past the statement timeout answers store_unavailable too", async () => {
  const impatient = await openPostgresStateStore({ url, poolSize: 1, statementTimeoutMs: 300 });
  const first = await hold(impatient);
  try {
    const started = Date.now();
    const refused = (await impatient.replacing(async () => 'ran').catch((e: unknown) => e)) as DomainError;
    expect(refused.kind).toBe('store_unavailable');
    expect(refused.retryAfterSeconds).toBe(1);
    expect(refused.message).toMatch(/This instance .*--database-timeout-ms \(300 ms\)/);
    expect(Date.now() - started).toBeLessThan(3000);
  } finally {
    first.release();
    await first.done;
  }
  // The queue goes on: the next one runs.
  expect(await impatient.replacing(async () => 'ran')).toBe('ran');
  await impatient.close();
});
