/**
 * API keys are kept in memory (domain/key-cache.ts); these prove the cache never answers for a key
 * that was revoked, rotated or reset away, on SQLite and across two PostgreSQL instances (two
 * stores with their own pools and caches, as two mock instances would have) on one database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRecord } from '../domain/api-keys.js';
import type { Organization } from '../domain/organization-record.js';
import type { StateStore } from '../domain/state.js';
import { startTestPostgres, type TestPostgres } from '../../test-support/test-postgres.js';
import { openPostgresStateStore } from './postgres/index.js';
import { openDatabase } from './sqlite/database/open-database.js';
import { SqliteStateStore } from './sqlite/sqlite-state-store.js';

const KEY = 'sk_test_00000000000000000000000000000001';
const NEW_KEY = 'sk_test_00000000000000000000000000000002';
const org = (): Organization => ({
  id: 'org-1',
  name: 'Lab',
  plan: { name: 'free', storageCapImages: 5, monthlyAnalysisCap: 5 },
  apiKeys: [apiKeyRecord(KEY)],
});

/** Each behaviour proved with the write on `writer` and the lookups on `reader`. */
function invalidationSuite(pair: () => { writer: StateStore; reader: StateStore }) {
  it('refuses a revoked key on the very next lookup', async () => {
    const { writer, reader } = pair();
    await writer.clear();
    await writer.organizations.insert(org());
    expect((await reader.organizationForKey(KEY))?.id).toBe('org-1');
    expect((await reader.organizationForKey(KEY))?.id).toBe('org-1');
    await writer.organizations.removeKey('org-1', apiKeyRecord(KEY).id);
    expect(await reader.organizationForKey(KEY)).toBeUndefined();
  });

  it('follows a rotation and a plan change inside a transaction once it commits', async () => {
    const { writer, reader } = pair();
    await writer.clear();
    await writer.organizations.insert(org());
    expect((await reader.organizationForKey(KEY))?.plan.name).toBe('free');
    await writer.transaction(async () => {
      await writer.organizations.addKey('org-1', apiKeyRecord(NEW_KEY));
      await writer.organizations.removeKey('org-1', apiKeyRecord(KEY).id);
      await writer.organizations.setPlan('org-1', { ...org().plan, name: 'pro' });
    });
    expect(await reader.organizationForKey(KEY)).toBeUndefined();
    expect((await reader.organizationForKey(NEW_KEY))?.plan.name).toBe('pro');
  });

  it('does not keep a key a rolled-back transaction added', async () => {
    const { writer, reader } = pair();
    await writer.clear();
    await writer.organizations.insert(org());
    await expect(
      writer.transaction(async () => {
        await writer.organizations.addKey('org-1', apiKeyRecord(NEW_KEY));
        expect((await writer.organizationForKey(NEW_KEY))?.id).toBe('org-1');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await writer.organizationForKey(NEW_KEY)).toBeUndefined();
    expect(await reader.organizationForKey(NEW_KEY)).toBeUndefined();
  });

  it('refuses every key after a reset', async () => {
    const { writer, reader } = pair();
    await writer.clear();
    await writer.organizations.insert(org());
    expect((await reader.organizationForKey(KEY))?.id).toBe('org-1');
    await writer.clear();
    expect(await reader.organizationForKey(KEY)).toBeUndefined();
  });
}

describe('SQLite: the process that writes is the one that reads', () => {
  let store: SqliteStateStore;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'key-cache-'));
    store = new SqliteStateStore(openDatabase(dir));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  invalidationSuite(() => ({ writer: store, reader: store }));
});

describe('PostgreSQL: a write on one instance, the next lookup on another', () => {
  let postgres: TestPostgres;
  let url: string;
  let a: StateStore;
  let b: StateStore;
  beforeAll(async () => {
    postgres = await startTestPostgres();
    url = await postgres.newDatabase();
    [a, b] = await Promise.all([1, 2].map(() => openPostgresStateStore({ url, poolSize: 2 })));
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await postgres?.stop();
  });
  invalidationSuite(() => ({ writer: a, reader: b }));
});
