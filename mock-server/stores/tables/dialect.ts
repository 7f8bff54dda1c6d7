/**
 * Where SQLite's SQL and PostgreSQL's differ, for the statements the tables share (work.ts): every
 * other word of a statement is the same on both engines.
 *
 *   engine          which of the two (a schema step asks it for what only one engine has)
 *   placeholders    the text as the engine's driver takes it (`?` stays on SQLite, `$1, $2` on PostgreSQL)
 *   nextSeq(table)  a new row's place in its table's order, as the value of its `seq` column
 *   lockRows        holds what a SELECT read until the transaction ends
 *   skipLocked      takes a row no other transaction holds, skipping those that one does
 *   nowMs           the engine's clock, in epoch milliseconds, as the statement runs
 *
 * and where their schema's words differ (migrations.ts):
 *
 *   seqColumn       the type of a `seq` column (numbered by the code, or by the database)
 *   codePointOrder  what makes a text column sort in code-point order
 *   flagColumn      the type of a true/false column (columns.ts `flag`)
 *   keyedTable      what follows a table kept in its primary key's order alone
 */
export interface Dialect {
  engine: 'sqlite' | 'postgres';
  placeholders(sql: string): string;
  nextSeq(table: string): string;
  lockRows: string;
  skipLocked: string;
  nowMs: string;
  seqColumn: string;
  codePointOrder: string;
  flagColumn: string;
  keyedTable: string;
}

/**
 * One process owns a SQLite database and BEGIN IMMEDIATE makes its transaction the only writer:
 * nothing is left for a row lock to exclude. Its clock is the machine's.
 */
export const SQLITE: Dialect = {
  engine: 'sqlite',
  placeholders: (sql) => sql,
  nextSeq: (table) => `(SELECT coalesce(max(seq), 0) + 1 FROM ${table})`,
  lockRows: '',
  skipLocked: '',
  nowMs: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
  seqColumn: 'integer NOT NULL',
  codePointOrder: '',
  flagColumn: 'integer',
  keyedTable: ' WITHOUT ROWID',
};

/**
 * Instances share the database: the `seq` columns are identity columns (numbered by the database,
 * however many insert at once), and every instance reads the database's one clock
 * (clock_timestamp(): the statement's time, not its transaction's start).
 */
export const POSTGRES: Dialect = {
  engine: 'postgres',
  placeholders: numbered,
  nextSeq: () => 'DEFAULT',
  lockRows: ' FOR NO KEY UPDATE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  nowMs: '(extract(epoch FROM clock_timestamp()) * 1000)::bigint',
  seqColumn: 'bigint GENERATED ALWAYS AS IDENTITY',
  codePointOrder: ' COLLATE "C"',
  flagColumn: 'boolean',
  keyedTable: '',
};

const numberedTexts = new Map<string, string>();

/** `?` outside quotes as `$1`, `$2`, ... (the texts are the code's own: a bounded set, each converted once). */
function numbered(sql: string): string {
  let text = numberedTexts.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/'[^']*'|\?/g, (token) => (token === '?' ? `$${++n}` : token));
    numberedTexts.set(sql, text);
  }
  return text;
}
