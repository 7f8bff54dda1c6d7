/**
 * PostgreSQL's answers to the statements of the tables both engines share (stores/tables/work.ts):
 * each statement awaited on the caller's transaction or the pool (connection.ts).
 *
 *   perform(sql)(work) -> promise of work's result
 */
import { POSTGRES } from '../tables/dialect.js';
import { type Query, runLater, type Work } from '../tables/work.js';
import type { Sql } from './connection.js';

export function perform(sql: Sql): <T>(work: Work<T>) => Promise<T> {
  const answer = async (query: Query): Promise<unknown> => {
    switch (query.kind) {
      case 'rows': {
        const rows = await sql.rows(POSTGRES.placeholders(query.sql), query.args);
        return query.map ? rows.map(query.map) : rows;
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
