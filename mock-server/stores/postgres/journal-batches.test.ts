/**
 * The journal's batches from several instances (a connection pool each) on one database: retention
 * stays exact when two trim one organization at once, two batches of the same organizations in
 * opposite orders never deadlock, and a read's pages see one state of the table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../domain/control-records.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { Sql } from './connection.js';
import { openPostgresStateStore } from './index.js';
import { BatchedJournal } from './journal-batches.js';

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

/** A new database at the latest schema, and a connection pool on it per instance. */
async function instances(count: number): Promise<{ url: string; pools: Sql[] }> {
  const url = await postgres.newDatabase();
  await (await openPostgresStateStore({ url })).close();
  const pools = Array.from(
    { length: count },
    () =>
      new Sql({
        url,
        poolSize: 4,
        statementTimeoutMs: 30_000,
        connectionTimeoutMs: 10_000,
        idleInTransactionTimeoutMs: 30_000,
      }),
  );
  return { url, pools };
}

let next = 0;
const entry = (organizationId: string | null): JournalEntry => ({
  at: '2026-11-28T12:00:00.000Z',
  requestId: `r${++next}`,
  method: 'GET',
  path: '/api/v1/models',
  operationId: 'listModels',
  organizationId,
  status: 200,
  durationMs: 1,
  fault: null,
});

/** Records the entries as one batch; settles once it is written (rejects if it was lost). */
async function batch(journal: BatchedJournal, entries: JournalEntry[]): Promise<void> {
  const written = Promise.all(entries.map((e) => journal.record(e)));
  await journal.flush();
  await written;
}

describe("PostgreSQL's journal across instances", () => {
  it("keeps an organization's newest entries exactly when two instances trim it at once", async () => {
    const { pools } = await instances(3);
    const [a, b, holder] = pools;
    try {
      const first = new BatchedJournal(a, 5);
      const second = new BatchedJournal(b, 5);
      const earlier = Array.from({ length: 5 }, () => entry('o'));
      await batch(first, earlier);
      // Both batches insert, then wait to trim behind a lock on the rows they would change.
      let release!: () => void;
      const locked = new Promise<void>((holding) => {
        void holder
          .transaction(async () => {
            await holder.rows('SELECT seq FROM journal FOR UPDATE');
            holding();
            await new Promise<void>((resolve) => (release = resolve));
          })
          .catch(() => undefined);
      });
      await locked;
      const later = [entry('o'), entry('o'), entry('o'), entry('o')];
      const both = Promise.all([batch(first, later.slice(0, 2)), batch(second, later.slice(2))]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      await both;
      const kept = await first.query({ organizationId: 'o', limit: 100 });
      expect(new Set(kept.map((e) => e.requestId))).toEqual(
        new Set([...later, earlier[4]].map((e) => e.requestId)),
      );
      expect(kept).toHaveLength(5);
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });

  it(
    'writes batches of the same organizations in opposite orders without a deadlock',
    { timeout: 180_000 },
    async () => {
      const { url, pools } = await instances(2);
      const deadlocks = async () => {
        const probe = new Sql({
          url,
          poolSize: 1,
          statementTimeoutMs: 30_000,
          connectionTimeoutMs: 10_000,
          idleInTransactionTimeoutMs: 30_000,
        });
        try {
          return Number(
            (
              await probe.column('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')
            )[0],
          );
        } finally {
          await probe.close();
        }
      };
      const before = await deadlocks();
      const organizations = Array.from({ length: 20 }, (_, i) => `org-${i}`);
      const [up, down] = pools.map((pool) => new BatchedJournal(pool, 3));
      try {
        for (let round = 0; round < 10; round++)
          await Promise.all([
            batch(up, organizations.map(entry)),
            batch(down, [...organizations].reverse().map(entry)),
          ]);
      } finally {
        // A backend reports its deadlocks to the statistics by the time it has exited.
        await Promise.all(pools.map((pool) => pool.close()));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await deadlocks()).toBe(before);
    },
  );

  it('keeps the newest entries of each of many organizations a batch holds, and of requests without one', async () => {
    const { pools } = await instances(1);
    try {
      const journal = new BatchedJournal(pools[0], 3);
      const owners = [null, ...Array.from({ length: 50 }, (_, i) => `org-${i}`)];
      // Interleaved: each owner's entries are runs of one, 7 of them, in one batch.
      const entries = Array.from({ length: 7 }, () => owners.map(entry)).flat();
      await batch(journal, entries);
      for (const owner of [null, 'org-0', 'org-49']) {
        const newest = entries
          .filter((e) => e.organizationId === owner)
          .slice(-3)
          .reverse();
        const kept = await journal.query({ limit: 1000 });
        expect(kept.filter((e) => e.organizationId === owner)).toEqual(newest);
      }
      expect(await journal.query({ limit: 1000 })).toHaveLength(owners.length * 3);
    } finally {
      await pools[0].close();
    }
  });

  it('answers no entry for a status past a 32-bit integer, as the embedded journal does', async () => {
    const { pools } = await instances(1);
    try {
      const journal = new BatchedJournal(pools[0], 10);
      await batch(journal, [entry('org-0')]);
      expect(await journal.query({ status: 200 })).toHaveLength(1);
      expect(await journal.query({ status: 99_999_999_999 })).toEqual([]);
      expect(await journal.query({ status: -(2 ** 31) - 1, organizationId: 'org-0' })).toEqual([]);
    } finally {
      await pools[0].close();
    }
  });

  it("answers a batch's entries with one promise, which rejects for all of them when the batch is lost", async () => {
    const { pools } = await instances(1);
    const journal = new BatchedJournal(pools[0], 10);
    try {
      const first = [entry('o'), entry('o')].map((e) => journal.record(e));
      expect(first[1]).toBe(first[0]);
      await journal.flush();
      await first[0];
      const second = journal.record(entry('o'));
      expect(second).not.toBe(first[0]);
      await pools[0].close();
      await expect(journal.flush().then(() => second)).rejects.toThrow(
        /^a batch of 1 journal entries was lost: /,
      );
    } finally {
      await pools[0].close().catch(() => {});
    }
  });

  it('loses a batch nobody awaits without an unhandled rejection', async () => {
    const { pools } = await instances(1);
    const journal = new BatchedJournal(pools[0], 10);
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      await pools[0].close();
      void journal.record(entry('o'));
      await journal.flush();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('reads its pages under one snapshot, whatever another instance trims meanwhile', async () => {
    const { pools } = await instances(2);
    const [reader, writer] = pools;
    try {
      const journal = new BatchedJournal(reader, 40);
      const other = new BatchedJournal(writer, 40);
      for (let i = 0; i < 40; i++) await batch(journal, [entry('o')]);
      const before = await journal.query({ organizationId: 'o', limit: 40 });
      expect(before).toHaveLength(40);
      // Between the read's first page and its second, the other instance adds 5 and trims 5.
      const rows = reader.rows.bind(reader);
      let pagesRead = 0;
      reader.rows = async (text, params) => {
        const answer = await rows(text, params);
        if (text.includes('SELECT seq, kept, entries') && ++pagesRead === 1)
          await batch(
            other,
            Array.from({ length: 5 }, () => entry('o')),
          );
        return answer;
      };
      expect((await journal.query({ organizationId: 'o', limit: 40 })).map((e) => e.requestId)).toEqual(
        before.map((e) => e.requestId),
      );
      expect(pagesRead).toBe(2);
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });
});
