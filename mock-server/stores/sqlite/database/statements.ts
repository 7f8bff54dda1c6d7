/**
 * SQLite's answers to the statements of the tables both engines share (stores/tables/work.ts),
 * each at once: compiled once and kept, with the answers of reads kept until the next write
 * (read-memo.ts). A SELECT only reads; anything else (a write, a WITH, a PRAGMA) is taken as a
 * write, and every kept answer is forgotten before it runs (and so also when it fails half-way).
 *
 *   performNow(db, memo)(work) -> work's result
 *   statementCache(db, memo)   the kept statements, read through the memo
 *   inTransaction(db, work)    `work` as one transaction, or in the caller's
 */
import { type Arg, type Query, type Row, runNow, type Work } from '../../tables/work.js';
import type { Database, Statement } from './node-sqlite.js';
import type { ReadMemo } from '../../tables/read-memo.js';

const READ_ONLY = /^\s*SELECT\b/i;

export function statementCache(db: Database, memo: ReadMemo) {
  const compiled = new Map<string, { statement: Statement; reads: boolean }>();
  const prepare = (sql: string) => {
    let kept = compiled.get(sql);
    if (!kept) compiled.set(sql, (kept = { statement: db.prepare(sql), reads: READ_ONLY.test(sql) }));
    return kept;
  };
  return {
    /** Every row, or `map` of every row (a read's records kept with its rows, for the reads nearly every request makes). */
    rows<T = Row>(sql: string, args: readonly Arg[], map?: (row: Row) => T): T[] {
      const { statement, reads } = prepare(sql);
      const read = () => statement.all(...args) as Row[];
      if (!reads) {
        memo.written();
        return map ? read().map(map) : (read() as T[]);
      }
      return map ? memo.records(sql, args, read, map) : (memo.rows(sql, args, read) as T[]);
    },
    /** A write: how many rows it changed. */
    run(sql: string, ...args: Arg[]): number {
      memo.written();
      return Number(prepare(sql).statement.run(...args).changes);
    },
  };
}

export function performNow(db: Database, memo: ReadMemo): <T>(work: Work<T>) => T {
  const statements = statementCache(db, memo);
  const answer = (query: Query): unknown => {
    switch (query.kind) {
      case 'rows':
        return statements.rows(query.sql, query.args, query.map);
      case 'run':
        return statements.run(query.sql, ...query.args);
      case 'script':
        memo.written();
        return db.exec(query.sql);
      case 'atomic':
        try {
          return inTransaction(db, () => runNow(query.work, answer));
        } catch (err) {
          // What a read inside the rolled-back transaction kept may be gone now.
          memo.written();
          throw err;
        }
    }
  };
  return (work) => runNow(work, answer);
}

/**
 * BEGIN IMMEDIATE takes the write lock before the first read, so a read-then-write inside `work`
 * never fails halfway to upgrade its lock. Called inside a transaction, `work` joins it (one commit
 * for the whole request). If `work` or the COMMIT throws, the transaction is rolled back, so the
 * database is as it was before it began (a COMMIT that fails on a full disk may already have ended
 * the transaction itself, hence the isTransaction check).
 */
export function inTransaction<T>(db: Database, work: () => T): T {
  if (db.isTransaction) return work();
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
