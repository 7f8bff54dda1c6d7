/**
 * PostgreSQL down, restarting or too slow: every call fails soon with StoreUnavailableError (the
 * HTTP layer's 503 with a detail), never hangs, and the store recovers by itself once the server
 * is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import type { StateStore } from '../../domain/state.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { openPostgresStateStore, StoreUnavailableError } from './index.js';

let postgres: TestPostgres;
let url: string;
let store: StateStore;
beforeAll(async () => {
  postgres = await startTestPostgres();
  url = await postgres.newDatabase();
  store = await openPostgresStateStore({ url, connectionTimeoutMs: 2000 });
  await store.organizations.insert({
    id: 'org-1',
    name: 'Lab',
    plan: { name: 'pro', storageCapImages: 5, monthlyAnalysisCap: 5 },
    apiKeys: [],
  });
});
afterAll(async () => {
  await store?.close();
  await postgres?.stop();
});

describe('when PostgreSQL is unavailable', () => {
  it('fails calls and transactions with StoreUnavailableError while it is down, and recovers after', async () => {
    await store.counters.increment('before');
    await postgres.server.restart(async () => {
      await expect(store.counters.get('before')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.transaction(() => store.organizations.lock('org-1'))).rejects.toThrow(
        /state database is unavailable/,
      );
    });
    expect(await store.counters.get('before')).toBe(1);
    expect(await store.counters.increment('before')).toBe(2);
  });

  it('fails a transaction whose connection is cut in the middle, keeping none of its writes', async () => {
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    let resume!: () => void;
    const cut = new Promise<void>((resolve) => (resume = resolve));
    const transaction = store.transaction(async () => {
      await store.clockOffsets.set('half', 1);
      inside();
      await cut;
      await store.clockOffsets.set('other', 2);
    });
    await started;
    await postgres.server.restart(async () => {
      resume();
      await expect(transaction).rejects.toBeInstanceOf(StoreUnavailableError);
    });
    expect(await store.clockOffsets.get('half')).toBeUndefined();
  });

  it('fails a statement that waits past the statement timeout (a lock held elsewhere) instead of hanging', async () => {
    const impatient = await openPostgresStateStore({ url, statementTimeoutMs: 300 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = store.transaction(async () => {
      await store.organizations.lock('org-1');
      locked();
      await held;
    });
    try {
      await lockTaken;
      await expect(impatient.transaction(() => impatient.organizations.lock('org-1'))).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
    } finally {
      release();
      await holder;
      await impatient.close();
    }
  });
});

it('answers a NUL in a looked-up id as the client’s error, not a server error', async () => {
  const lookup = store.images.get('img\u0000');
  await expect(lookup).rejects.toBeInstanceOf(DomainError);
  await expect(lookup).rejects.toMatchObject({ kind: 'invalid_input' });
});
