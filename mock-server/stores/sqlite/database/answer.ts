/**
 * SQLite's answers to the statements of the tables both engines share (stores/tables/work.ts):
 * each statement answered at once through the kept statements and the read memo (statements.ts).
 *
 *   performNow(db, statements)(work) -> work's result
 */
import { type Query, runNow, type Work } from '../../tables/work.js';
import type { Database } from './node-sqlite.js';
import type { Statements } from './statements.js';
import { inTransaction } from './transaction.js';

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
