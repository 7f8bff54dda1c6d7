/**
 * SQLite's answers to the statements of the tables both engines share (stores/tables/work.ts):
 * each statement answered at once through the kept statements and the read memo (statements.ts).
 *
 *   performNow(db, statements)(work) -> work's result
 *   inTransaction(db, work) -> work's result   `work` as one transaction, or in the caller's
 */
import { type Query, runNow, type Work } from '../../tables/work.js';
import type { Database } from './node-sqlite.js';
import type { Statements } from './statements.js';

export function performNow(db: Database, statements: Statements): <T>(work: Work<T>) => T {
  const answer = (query: Query): unknown => {
    switch (query.kind) {
      case 'rows':
        return statements.rows(query.sql, query.args, query.map);
      case 'run':
        return statements.run(query.sql, ...query.args);
      case 'script':
        return statements.exec(query.sql);
      case 'atomic':
        try {
          return inTransaction(db, () => runNow(query.work, answer));
        } catch (err) {
          // What a read inside the rolled-back transaction kept may be gone now.
          statements.forget();
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
