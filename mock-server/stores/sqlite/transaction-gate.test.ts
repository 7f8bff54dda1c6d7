/**
 * The gate's promises hold across transactions: a call from inside a transaction joins it, a call
 * from anywhere else waits for its end, however many transactions came before (the context is
 * switched off between transactions and on again by the next).
 */
import { describe, expect, it } from 'vitest';
import { DatabaseSync } from './database/node-sqlite.js';
import { TransactionGate } from './transaction-gate.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gated() {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (n INTEGER)');
  const gate = new TransactionGate(db, (err) => err);
  const count = () => gate.run(() => (db.prepare('SELECT count(*) AS c FROM t').get() as { c: number }).c);
  const insert = () => gate.run(() => db.prepare('INSERT INTO t VALUES (1)').run());
  return { gate, count, insert };
}

describe('transaction gate', () => {
  it('joins calls from inside each transaction and holds back the others, transaction after transaction', async () => {
    const { gate, count, insert } = gated();
    for (let round = 1; round <= 3; round++) {
      let outsideSaw: number | undefined;
      // Set up outside the transaction, so its callback runs in the test's context, not the transaction's.
      let release!: () => void;
      const outside = new Promise<void>((resolve) => (release = resolve)).then(async () => {
        outsideSaw = await count();
      });
      await gate.transaction(async () => {
        await insert();
        await tick(5);
        // From inside, after a timer: joins, and sees the uncommitted row.
        expect(await count()).toBe(2 * round - 1);
        release();
        await tick(5);
        // From outside: held back until the commit.
        expect(outsideSaw).toBeUndefined();
        await insert();
      });
      await outside;
      expect(outsideSaw).toBe(2 * round);
    }
  });

  it('rolls back what a failed transaction wrote, and the next one works', async () => {
    const { gate, count, insert } = gated();
    await expect(
      gate.transaction(async () => {
        await insert();
        throw new Error('failed');
      }),
    ).rejects.toThrow('failed');
    expect(await count()).toBe(0);
    await gate.transaction(async () => {
      await insert();
      expect(await count()).toBe(1);
    });
    expect(await count()).toBe(1);
  });

  it('tells its hooks of each begin and end, and a hook that throws holds up no later transaction', async () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (n INTEGER)');
    const heard: string[] = [];
    let throwAtEnd = true;
    const gate = new TransactionGate(db, (err) => err, {
      begun: () => heard.push('begun'),
      ended: (committed) => {
        heard.push(committed ? 'committed' : 'rolled back');
        if (throwAtEnd) throw new Error('hook failed');
      },
    });
    await expect(gate.transaction(async () => undefined)).rejects.toThrow('hook failed');
    throwAtEnd = false;
    await expect(
      gate.transaction(async () => {
        throw new Error('failed');
      }),
    ).rejects.toThrow('failed');
    await gate.transaction(async () => undefined);
    await gate.closed();
    expect(heard).toEqual(['begun', 'committed', 'begun', 'rolled back', 'begun', 'committed']);

    // A BEGIN that fails began nothing: no end is told.
    db.exec('BEGIN');
    await expect(gate.transaction(async () => undefined)).rejects.toThrow();
    expect(heard).toHaveLength(6);
  });
});
