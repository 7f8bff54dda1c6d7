/**
 * Statements compiled once and kept, with the answers of reads kept until the next write
 * (read-memo.ts). A SELECT only reads; anything else (a write, a WITH, a PRAGMA) is taken as a
 * write, and every kept answer is forgotten before it runs (and so also when it fails half-way).
 */
import type { Arg, Row } from '../../tables/work.js';
import type { Database, Statement } from './node-sqlite.js';
import { ReadMemo } from '../../tables/read-memo.js';

/** The part of a database the tables use. */
export interface Statements {
  /** Every row, or `map` of every row (a read's records kept with its rows, for the reads nearly every request makes). */
  rows<T = Row>(sql: string, args: readonly Arg[], map?: (row: Row) => T): T[];
  /** A write: how many rows it changed. */
  run(sql: string, ...args: Arg[]): number;
  /** Runs several statements (no arguments). */
  exec(sql: string): void;
  /** Forgets every kept answer (a rollback may have undone what they read). */
  forget(): void;
}

const READ_ONLY = /^\s*SELECT\b/i;

export function statementCache(db: Database, memo: ReadMemo = new ReadMemo()): Statements {
  const compiled = new Map<string, { statement: Statement; reads: boolean }>();
  const prepare = (sql: string) => {
    let kept = compiled.get(sql);
    if (!kept) compiled.set(sql, (kept = { statement: db.prepare(sql), reads: READ_ONLY.test(sql) }));
    return kept;
  };
  return {
    rows<T>(sql: string, args: readonly Arg[], map?: (row: Row) => T): T[] {
      const { statement, reads } = prepare(sql);
      const read = () => statement.all(...args) as Row[];
      if (!reads) {
        memo.written();
        return map ? read().map(map) : (read() as T[]);
      }
      return map ? memo.records(sql, args, read, map) : (memo.rows(sql, args, read) as T[]);
    },
    run(sql, ...args) {
      memo.written();
      return Number(prepare(sql).statement.run(...args).changes);
    },
    exec(sql) {
      memo.written();
      db.exec(sql);
    },
    forget: () => memo.written(),
  };
}
