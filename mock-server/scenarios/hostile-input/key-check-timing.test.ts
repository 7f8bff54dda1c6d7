/**
 * Key checks take the same time whatever the key presented, proved by construction rather than by
 * a stopwatch (the project's tests assert no timings): a presented key is looked up by its SHA-256,
 * so the database index compares hashes, never the key's characters, and the stored hash is then
 * compared with crypto.timingSafeEqual over buffers of equal length. These tests fail if the lookup
 * used the key itself or the comparison were a plain `===`; the bench's hostile section adds the
 * latency of a near miss against a random key (docs/benchmarks.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

const compared = vi.hoisted(() => ({ calls: [] as Array<[Buffer, Buffer]> }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.calls.push([Buffer.from(a as Uint8Array), Buffer.from(b as Uint8Array)]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

// Test files share one module registry (isolate: false): modules another file loaded hold the real
// node:crypto, so they are loaded afresh here, with the mock.
vi.resetModules();
const { apiKeyRecord, hashApiKey, sameKeyHash } = await import('../../domain/api-keys.js');
const { isAdminToken } = await import('../../http/bearer-auth.js');
const { openDatabase } = await import('../../stores/sqlite/database/open-database.js');
const { SqliteStateStore } = await import('../../stores/sqlite/sqlite-state-store.js');

const KEY = 'sk_test_0123456789abcdef0123456789abcdef';

describe('key checks are constant-time by construction', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'key-timing-'));
  const state = new SqliteStateStore(openDatabase(dir));
  beforeAll(async () => {
    await state.organizations.insert({
      id: 'org-1',
      name: 'Lab',
      plan: { name: 'pro', storageCapImages: 1, monthlyAnalysisCap: 1 },
      apiKeys: [apiKeyRecord(KEY)],
    });
  });
  afterAll(async () => {
    await state.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    compared.calls.length = 0;
  });

  it("finds a key's organization through timingSafeEqual over the two hashes, never the key", async () => {
    expect((await state.organizationForKey(KEY))?.id).toBe('org-1');
    const hash = Buffer.from(hashApiKey(KEY), 'hex');
    expect(compared.calls).toEqual([[hash, hash]]);
    for (const [a, b] of compared.calls) {
      expect(a.includes(Buffer.from(KEY))).toBe(false);
      expect(a.length).toBe(32);
      expect(b.length).toBe(32);
    }
  });

  it('answers an unknown key from the index of hashes: no comparison of characters takes place', async () => {
    // A key one character off the real one shares its prefix, not its hash: the index finds nothing.
    expect(await state.organizationForKey(`${KEY.slice(0, -1)}0`)).toBeUndefined();
    expect(await state.organizationForKey('x')).toBeUndefined();
    expect(compared.calls).toEqual([]);
  });

  it('compares hashes of unequal length as unequal without comparing them, and equal ones in constant time', () => {
    expect(sameKeyHash(hashApiKey(KEY), hashApiKey(KEY).slice(0, 10))).toBe(false);
    expect(compared.calls).toEqual([]);
    expect(sameKeyHash(hashApiKey(KEY), hashApiKey('other'))).toBe(false);
    expect(compared.calls).toHaveLength(1);
  });

  it('checks the admin token through timingSafeEqual of two digests, whatever the header length', () => {
    for (const header of [undefined, 'Bearer x', `Bearer ${'t'.repeat(10_000)}`, 'Bearer the-token'])
      isAdminToken(header, 'the-token');
    expect(compared.calls).toHaveLength(4);
    for (const [a, b] of compared.calls) expect([a.length, b.length]).toEqual([32, 32]);
  });
});
