/**
 * PostgreSQL's answers to the statements of the tables both engines share (stores/tables/work.ts):
 * each statement awaited on the caller's transaction or the pool (connection.ts), a read's records
 * from the memo where one is given and that is exact (snapshot-memo.ts).
 *
 *   perform(sql, memo?)(work) -> promise of work's result
 */
import { POSTGRES } from '../tables/dialect.js';
import { type Query, runLater, type Work } from '../tables/work.js';
import type { Sql } from './connection.js';
import type { SnapshotMemo } from './snapshot-memo.js';

export function perform(sql: Sql, memo?: SnapshotMemo): <T>(work: Work<T>) => Promise<T> {
  const answer = async (query: Query): Promise<unknown> => {
    switch (query.kind) {
      case 'rows': {
        const text = POSTGRES.placeholders(query.sql);
        const read = () => sql.rows(text, query.args);
        if (query.map === undefined) return read();
        return memo ? memo.records(text, query.args, read, query.map) : (await read()).map(query.map);
      }
      case 'run':
        return sql.changes(POSTGRES.placeholders(query.sql), query.args);
      case 'script':
        return sql.rows(query.sql);
      case 'atomic':
        return sql.transaction(() => runLater(query.work, answer));
    }
  };
  return (work) => runLater(work, answer);
}
