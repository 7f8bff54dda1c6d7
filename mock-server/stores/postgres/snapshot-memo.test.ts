/**
 * Inside a request (a view's `within`, after its versions read) the table reads are answered from
 * the instance's memory (snapshot-memo.ts) and never with what changed since: two stores with their
 * own pools and memory, as two mock instances would have, on one database.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiKeyRecord } from '../../domain/api-keys.js';
import type { Organization } from '../../domain/organization-record.js';
import type { ModelRecord } from '../../domain/models/model-record.js';
import type { StateStore } from '../../domain/state.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { Sql } from './connection.js';
import { openPostgresStateStore } from './index.js';

const KEY = 'sk_test_00000000000000000000000000000002';
const org = (): Organization => ({
  id: 'org-1',
  name: 'Lab',
  plan: { name: 'free', storageCapImages: 5, monthlyAnalysisCap: 5 },
  apiKeys: [apiKeyRecord(KEY)],
});

/** Runs `work` as one request of `store` does: its versions read first, then its reads. */
async function request<T>(store: StateStore, work: () => Promise<T>): Promise<T> {
  const reads = store.requestReads();
  return reads.within(async () => {
    await reads.organizationForKey(KEY);
    return work();
  });
}

const model = (id: string): ModelRecord => ({
  id,
  name: id,
  version: '1',
  description: '',
  scope: 'custom',
  organizationId: 'org-1',
  engine: { kind: 'remote', url: 'http://127.0.0.1:9', timeoutMs: 1000, params: {} },
});
/** What GET /models reads: the names of the organization's models. */
const namesOf = async (store: StateStore) => (await store.models.listFor(org())).map((m) => m.name);

describe('table reads inside a request, from memory under the snapshot it saw', () => {
  let postgres: TestPostgres;
  let a: StateStore;
  let b: StateStore;
  const sendRows = Sql.prototype.rows;
  const statements = vi.spyOn(Sql.prototype, 'rows');
  beforeAll(async () => {
    postgres = await startTestPostgres();
    const url = await postgres.newDatabase();
    [a, b] = await Promise.all([1, 2].map(() => openPostgresStateStore({ url, poolSize: 2 })));
  });
  afterAll(async () => {
    statements.mockRestore();
    await Promise.all([a?.close(), b?.close()]);
    await postgres?.stop();
  });
  beforeEach(async () => {
    await a.clear();
    await a.organizations.insert(org());
    await a.models.add(model('m1'));
  });
  afterEach(() => statements.mockClear());

  it('answers a repeated read with no statement while nothing changed', async () => {
    expect(await request(b, () => namesOf(b))).toEqual(['m1']);
    statements.mockClear();
    expect(await request(b, () => namesOf(b))).toEqual(['m1']);
    // The versions read only: the models came from memory.
    expect(statements.mock.calls.map(([text]) => text)).toEqual([
      expect.stringContaining('pg_current_snapshot'),
    ]);
  });

  it("sees another instance's change in the next request", async () => {
    expect(await request(b, () => namesOf(b))).toEqual(['m1']);
    await a.models.add(model('m2'));
    expect(await request(b, () => namesOf(b))).toEqual(['m1', 'm2']);
  });

  it('sees its own write in the same request, though the snapshot it holds is older', async () => {
    const seen = await request(b, async () => {
      const before = await namesOf(b);
      await b.models.add(model('m3'));
      return [before, await namesOf(b)];
    });
    expect(seen).toEqual([['m1'], ['m1', 'm3']]);
  });

  it('sees a transaction of its own once it committed', async () => {
    const seen = await request(b, async () => {
      await namesOf(b);
      await b.transaction(() => b.models.add(model('m4')));
      return namesOf(b);
    });
    expect(seen).toEqual(['m1', 'm4']);
  });

  it('reads the database for work a request left running after it ended', async () => {
    let go!: () => void;
    let later!: Promise<string[]>;
    await request(b, async () => {
      await namesOf(b);
      // Registered inside the request: it runs in the request's async context, after it ended.
      later = new Promise<void>((resolve) => (go = resolve)).then(() => namesOf(b));
    });
    await a.models.add(model('m5'));
    go();
    expect(await later).toEqual(['m1', 'm5']);
  });

  it('reads the database outside any request', async () => {
    await request(b, () => namesOf(b));
    await a.models.add(model('m6'));
    expect(await namesOf(b)).toEqual(['m1', 'm6']);
  });

  it("keeps a newer request's reads when an older request, still running, reads under its older snapshot", async () => {
    let resume!: () => void;
    const older = request(b, async () => {
      await new Promise<void>((resolve) => (resume = resolve));
      return namesOf(b);
    });
    await vi.waitFor(() => expect(resume).toBeDefined());
    await a.models.add(model('m7'));
    expect(await request(b, () => namesOf(b))).toEqual(['m1', 'm7']);
    resume();
    await older;
    statements.mockClear();
    // Nothing changed since the newer request: what it kept still answers, the older one displaced nothing.
    expect(await request(b, () => namesOf(b))).toEqual(['m1', 'm7']);
    expect(statements.mock.calls.map(([text]) => text)).toEqual([
      expect.stringContaining('pg_current_snapshot'),
    ]);
  });

  it('sends one read for the requests that meet the emptied memo together, and gives each its own records', async () => {
    await request(b, () => namesOf(b));
    await a.models.add(model('m8'));
    statements.mockClear();
    const lists = await Promise.all([1, 2, 3, 4].map(() => request(b, () => b.models.listFor(org()))));
    expect(lists.map((models) => models.map((m) => m.name))).toEqual(Array(4).fill(['m1', 'm8']));
    expect(new Set(lists.flat()).size).toBe(8);
    const texts = statements.mock.calls.map(([text]) => text);
    expect(texts.filter((text) => text.includes('FROM models'))).toHaveLength(1);
  });

  it("never shares a read sent before a write of this instance's own", async () => {
    await request(b, () => namesOf(b));
    await a.models.add(model('m9'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    statements.mockImplementation(async function (this: Sql, text, params) {
      if (!holding || !text.includes('FROM models')) return sendRows.call(this, text, params);
      holding = false;
      // Read now, answered later: the read is on its way while the other request writes.
      const answer = await sendRows.call(this, text, params);
      await held;
      return answer;
    });
    try {
      const before = request(b, () => namesOf(b));
      await vi.waitFor(() => expect(holding).toBe(false));
      const after = request(b, async () => {
        await b.models.add(model('m10'));
        return namesOf(b);
      });
      setTimeout(release, 100);
      expect(await after).toEqual(['m1', 'm10', 'm9']);
      expect(await before).toEqual(['m1', 'm9']);
    } finally {
      statements.mockReset();
    }
  });

  it('hands out copies: a caller that changes a record changes nothing kept', async () => {
    await request(b, async () => ((await b.models.listFor(org()))[0].name = 'changed'));
    expect(await request(b, () => namesOf(b))).toEqual(['m1']);
  });
});
