/**
 * A request's view of the state (request-reads.ts) answers from what its instance keeps in memory
 * when the versions did not move; these prove it never answers with what another instance changed
 * before the request began: two stores with their own pools and memory, as two mock instances would
 * have, on one database, each view read after the other store's write returned.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiKeyRecord } from '../../domain/api-keys.js';
import type { Organization } from '../../domain/organization-record.js';
import type { StateStore } from '../../domain/state.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { openPostgresStateStore } from './index.js';

const KEY = 'sk_test_00000000000000000000000000000001';
const org = (): Organization => ({
  id: 'org-1',
  name: 'Lab',
  plan: { name: 'free', storageCapImages: 5, monthlyAnalysisCap: 5 },
  apiKeys: [apiKeyRecord(KEY)],
});
const always = () => 0;

describe("a request's reads on one instance after a write on another", () => {
  let postgres: TestPostgres;
  let a: StateStore;
  let b: StateStore;
  beforeAll(async () => {
    postgres = await startTestPostgres();
    const url = await postgres.newDatabase();
    [a, b] = await Promise.all([1, 2].map(() => openPostgresStateStore({ url, poolSize: 2 })));
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await postgres?.stop();
  });
  beforeEach(async () => {
    await a.clear();
    await a.organizations.insert(org());
    // B's memory holds the state as it is now: what follows must not be answered from it.
    const reads = b.requestReads();
    expect((await reads.organizationForKey(KEY))?.id).toBe('org-1');
    expect(await reads.clockOffsets.get('org-1')).toBeUndefined();
    expect(await reads.faults.take('listModels', 'org-1', always)).toBeUndefined();
  });

  it('sees a fault added, then cleared', async () => {
    await a.faults.add({ operationId: 'listModels', status: 503 });
    expect((await b.requestReads().faults.take('listModels', 'org-1', always))?.status).toBe(503);
    expect((await b.requestReads().faults.take('listModels', 'org-1', always))?.hits).toBe(2);
    expect(await b.requestReads().faults.take('getModel', 'org-1', always)).toBeUndefined();
    await a.faults.clear();
    expect(await b.requestReads().faults.take('listModels', 'org-1', always)).toBeUndefined();
  });

  it("counts a limited fault's hits once across instances, and forgets it after its last", async () => {
    await a.faults.add({ operationId: 'listModels', status: 500, times: 2 });
    const taken = await Promise.all(
      [a, b, a, b].map((store) => store.requestReads().faults.take('listModels', 'org-1', always)),
    );
    expect(taken.filter(Boolean).map((f) => f!.hits)).toEqual(expect.arrayContaining([1, 2]));
    expect(taken.filter(Boolean)).toHaveLength(2);
    for (const store of [a, b])
      expect(await store.requestReads().faults.take('listModels', 'org-1', always)).toBeUndefined();
    expect(await b.faults.list()).toEqual([]);
  });

  it("sees the mock's clock and an organization's moved", async () => {
    await a.clockOffsets.set('', 86_400_000);
    await a.clockOffsets.set('org-1', 3_600_000);
    const reads = b.requestReads();
    expect(await reads.clockOffsets.get('')).toBe(86_400_000);
    expect(await reads.clockOffsets.get('org-1')).toBe(3_600_000);
    await a.transaction(() => a.clockOffsets.set('org-1', 0));
    expect(await b.requestReads().clockOffsets.get('org-1')).toBe(0);
  });

  it('refuses a key revoked, and every key and offset after a reset', async () => {
    await a.organizations.removeKey('org-1', apiKeyRecord(KEY).id);
    expect(await b.requestReads().organizationForKey(KEY)).toBeUndefined();
    await a.organizations.addKey('org-1', apiKeyRecord(KEY));
    await a.clockOffsets.set('org-1', 60_000);
    expect((await b.requestReads().organizationForKey(KEY))?.id).toBe('org-1');
    expect(await b.requestReads().clockOffsets.get('org-1')).toBe(60_000);
    await a.clear();
    const reads = b.requestReads();
    expect(await reads.organizationForKey(KEY)).toBeUndefined();
    expect(await reads.clockOffsets.get('org-1')).toBeUndefined();
  });

  it('does not keep what a rolled-back transaction wrote', async () => {
    await expect(
      a.transaction(async () => {
        await a.faults.add({ operationId: 'listModels', status: 503 });
        await a.clockOffsets.set('org-1', 60_000);
        // Read inside the transaction that wrote them: the tables, not what B or A keep.
        expect(await a.requestReads().clockOffsets.get('org-1')).toBe(60_000);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    for (const store of [a, b]) {
      const reads = store.requestReads();
      expect(await reads.clockOffsets.get('org-1')).toBeUndefined();
      expect(await reads.faults.take('listModels', 'org-1', always)).toBeUndefined();
    }
  });
});
