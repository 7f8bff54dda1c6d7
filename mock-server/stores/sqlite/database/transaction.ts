/**
 * One transaction around `work`, the way the store's writes need it:
 *
 *   inTransaction(db, work) -> work's result
 *
 * BEGIN IMMEDIATE takes the write lock before the first read, so a read-then-write inside `work`
 * never fails halfway to upgrade its lock. Called inside a transaction, `work` joins it (one commit
 * for the whole request). If `work` or the COMMIT throws, the transaction is rolled back, so the
 * database is as it was before it began (a COMMIT that fails on a full disk may already have ended
 * the transaction itself, hence the isTransaction check).
 */
import type { Database } from './node-sqlite.js';

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
