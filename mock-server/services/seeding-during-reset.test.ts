/**
 * An instance starting on a shared database while another instance's reset is between its clear and
 * its seed finds the state unseeded: its seeding waits for the reset (StateStore.replacing), so the
 * reset's own seed lands instead of meeting the new instance's rows (a primary key taken, a 500).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startInstantMock } from '../../test-support/instant-mock.js';
import { startTestPostgres, type TestPostgres } from '../../test-support/test-postgres.js';
import { loadConfig } from '../config.js';
import type { RunningMock } from '../server.js';
import { openPostgresStateStore, type PostgresStateStore } from '../stores/postgres/index.js';
import { Seeding } from './seeding.js';

let postgres: TestPostgres;
let url: string;
let store: PostgresStateStore;
let started: RunningMock | undefined;

beforeAll(async () => {
  postgres = await startTestPostgres();
  url = await postgres.newDatabase();
  store = await openPostgresStateStore({ url, poolSize: 2 });
}, 120_000);
afterAll(async () => {
  await started?.close();
  await store?.close();
  await postgres?.stop();
});

it("an instance started during another's reset seeds after it, and the reset's seed lands", async () => {
  let starting!: Promise<RunningMock>;
  // What a reset does (instance-lifecycle.ts), with an instance starting between its clear and seed.
  await store.replacing(async () => {
    await store.clear();
    starting = startInstantMock({ databaseUrl: url });
    await Promise.race([starting, new Promise((resolve) => setTimeout(resolve, 1500))]);
    await new Seeding(loadConfig([], {}, {}), store).seed();
  });
  started = await starting;
  expect(await store.seed.seededAt()).toBeDefined();
  const health = await fetch(`${started.url}/__mock/health`);
  expect(health.status).toBeLessThan(500);
}, 60_000);
