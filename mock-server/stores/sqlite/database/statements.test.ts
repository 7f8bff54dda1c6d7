/**
 * Reads are answered from memory until something writes, and never after: a write through any
 * statement, a rolled-back transaction and an emptied store each make the next read go to SQLite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStateStore } from '../sqlite-state-store.js';
import { DatabaseSync } from './node-sqlite.js';
import { openDatabase } from './open-database.js';
import { copyPlain, ReadMemo } from '../../tables/read-memo.js';
import { clientText, fromClientText } from '../../tables/client-text.js';
import { statementCache } from './statements.js';
import type { Arg } from '../../tables/work.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A whole store on a folder of its own, removed after the test: transactions go through its gate. */
function storeInFolder(): SqliteStateStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'read-memo-'));
  dirs.push(dir);
  return new SqliteStateStore(openDatabase(dir));
}

function table() {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, value TEXT, bytes BLOB)');
  db.exec("INSERT INTO t VALUES ('a', 'one', x'0102')");
  const memo = new ReadMemo();
  const statements = statementCache(db, memo);
  const row = (sql: string, ...args: Arg[]) => statements.rows(sql, args)[0];
  const column = (sql: string, ...args: Arg[]) => statements.rows(sql, args).map((r) => Object.values(r)[0]);
  return { db, memo, statements, row, column };
}

describe('read memo', () => {
  it('answers a read from memory while nothing is written (the raw connection changing the row is not seen)', () => {
    const { db, row, column } = table();
    expect(row('SELECT value FROM t WHERE id = ?', 'a')).toEqual({ value: 'one' });
    // Behind the memo's back: only a write through the statements is a write it knows of.
    db.exec("UPDATE t SET value = 'changed behind' WHERE id = 'a'");
    expect(row('SELECT value FROM t WHERE id = ?', 'a')).toEqual({ value: 'one' });
    expect(column('SELECT value FROM t WHERE id = ?', 'b')).toEqual([]);
  });

  it('forgets every answer when a statement writes, whichever table or row it touches', () => {
    const { statements, row, column } = table();
    row('SELECT value FROM t WHERE id = ?', 'a');
    statements.run("UPDATE t SET value = 'two' WHERE id = ?", 'a');
    expect(row('SELECT value FROM t WHERE id = ?', 'a')).toEqual({ value: 'two' });
    statements.run('INSERT INTO t (id, value) VALUES (?, ?)', 'b', 'bee');
    expect(column('SELECT value FROM t ORDER BY id')).toEqual(['two', 'bee']);
  });

  it('forgets before a write that fails half-way', () => {
    const { statements, column } = table();
    expect(column('SELECT id FROM t')).toEqual(['a']);
    const insert = (...args: Arg[]) => statements.run('INSERT INTO t (id, value) VALUES (?, ?)', ...args);
    insert('b', 'bee');
    expect(() => insert('a', 'duplicate')).toThrow();
    expect(column('SELECT id FROM t ORDER BY id')).toEqual(['a', 'b']);
  });

  it('tells apart calls whose arguments would print alike', () => {
    const { statements, row, column } = table();
    statements.run('INSERT INTO t (id, value) VALUES (?, ?)', '1', 'text one');
    expect(row('SELECT value FROM t WHERE id = ?', '1')).toEqual({ value: 'text one' });
    // SQLite finds no row for the number 1 in this TEXT key: the answer kept for the text '1' is not reused.
    expect(row('SELECT value FROM t WHERE id = ?', 1)).toBeUndefined();
    expect(row('SELECT value FROM t WHERE id = ?', null)).toBeUndefined();
    expect(column('SELECT value FROM t WHERE id = ? OR id = ? ORDER BY id', 'a', '1')).toEqual([
      'text one',
      'one',
    ]);
  });

  it('hands out copies: a caller changing a row or its bytes changes nothing kept', () => {
    const { row } = table();
    const first = row('SELECT * FROM t WHERE id = ?', 'a') as { value: string; bytes: Uint8Array };
    first.value = 'mutated';
    first.bytes[0] = 99;
    expect(row('SELECT * FROM t WHERE id = ?', 'a')).toEqual({
      id: 'a',
      value: 'one',
      bytes: new Uint8Array([1, 2]),
    });
  });

  it('keeps at most its bound of answers and of rows, then starts over; a large answer is never kept', () => {
    const memo = new ReadMemo({ entries: 2, rows: 5, rowsPerAnswer: 3 });
    let reads = 0;
    const read =
      (n = 1) =>
      () => (reads++, Array.from({ length: n }, (_, i) => ({ i })));
    memo.rows('q', ['x'], read());
    memo.rows('q', ['y'], read());
    memo.rows('q', ['x'], read());
    expect(reads).toBe(2);
    memo.rows('q', ['z'], read());
    expect(memo.size).toBe(1);
    memo.rows('q', ['x'], read());
    expect(reads).toBe(4);
    // More rows than an answer may have: read every time, and nothing kept is dropped for it.
    expect(memo.rows('big', [], read(4))).toHaveLength(4);
    expect(memo.rows('big', [], read(4))).toHaveLength(4);
    expect(reads).toBe(6);
    expect(memo.size).toBe(2);
    // Rows in all: 2 kept + 3 more would pass 5, so the memo starts over before keeping them.
    memo.rows('three', [], read(3));
    expect(memo.size).toBe(1);
    memo.records('three', [], read(3), (row) => row.i);
    expect(memo.size).toBe(1);
  });

  it('keeps the records made from rows, hands out deep copies, and forgets them on a write', () => {
    const { db, statements } = table();
    let made = 0;
    const toRecord = (row: Record<string, unknown>) => {
      made++;
      return { id: row.id as string, nested: { value: row.value as string, list: [1, { deep: true }] } };
    };
    const read = () => statements.rows('SELECT * FROM t WHERE id = ?', ['a'], toRecord);
    const first = read();
    first[0].nested.value = 'mutated';
    (first[0].nested.list[1] as { deep: boolean }).deep = false;
    db.exec("UPDATE t SET value = 'changed behind' WHERE id = 'a'");
    expect(read()).toEqual([{ id: 'a', nested: { value: 'one', list: [1, { deep: true }] } }]);
    expect(made).toBe(1);
    statements.run('DELETE FROM t WHERE id = ?', 'nobody');
    expect(read()[0].nested.value).toBe('changed behind');
    expect(made).toBe(2);
    // A write answering rows is never kept, and forgets what was.
    expect(statements.rows("UPDATE t SET value = 'returned' RETURNING *", [], toRecord)).toHaveLength(1);
    expect(read()[0].nested.value).toBe('returned');
    expect(made).toBe(4);
  });

  it('copies plain values whole: objects, arrays, bytes and the values inside them', () => {
    const value = { a: [1, 'two', null, { b: new Uint8Array([3]) }], c: { d: undefined, e: false } };
    const copy = copyPlain(value);
    expect(copy).toEqual(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[3]).not.toBe(value.a[3]);
    expect((copy.a[3] as { b: Uint8Array }).b).not.toBe((value.a[3] as { b: Uint8Array }).b);
    expect(copy.c).not.toBe(value.c);
  });

  it('a rolled-back transaction leaves no answer it saw behind', async () => {
    const store = storeInFolder();
    try {
      await store.clockOffsets.set('k', 1);
      await expect(
        store.transaction(async () => {
          await store.clockOffsets.set('k', 2);
          expect(await store.clockOffsets.get('k')).toBe(2);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await store.clockOffsets.get('k')).toBe(1);
      await store.clockOffsets.set('gone', 3);
      expect(await store.clockOffsets.get('gone')).toBe(3);
      await store.clear();
      expect(await store.clockOffsets.get('gone')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a read held back by a transaction that rolls back sees the rows from before it, not what it read inside', async () => {
    const store = storeInFolder();
    try {
      await store.clockOffsets.set('k', 1);
      let heldBack: Promise<number | undefined> | undefined;
      // Started outside the transaction, so the read waits for its end instead of joining it.
      let startRead!: () => void;
      const outside = new Promise<void>((resolve) => (startRead = resolve)).then(() => {
        heldBack = store.clockOffsets.get('k');
      });
      await expect(
        store.transaction(async () => {
          await store.clockOffsets.set('k', 2);
          expect(await store.clockOffsets.get('k')).toBe(2);
          startRead();
          await outside;
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      // It runs the moment the transaction ends, before the store has seen the rejection.
      expect(await heldBack).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe('client text', () => {
  it('reads back exactly what was stored, with or without characters JSON escapes', () => {
    for (const text of [
      '',
      'plain',
      'quote " inside',
      'back\\slash',
      'tab\there',
      '\u0001',
      '\ud800 lone',
      'é ü 漢',
    ])
      expect(fromClientText(clientText(text))).toBe(text);
  });
});
