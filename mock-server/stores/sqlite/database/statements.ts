/** Statements compiled once and kept, and how a client's text is stored: what the tables share. */
import type { Database, Statement } from './node-sqlite.js';

export type Row = Record<string, unknown>;

/** The part of a database the tables use: statements compiled once and kept (SQL text -> statement). */
export interface Statements {
  prepare(sql: string): Statement;
  /** Runs a statement with `@name` parameters, binding each from the like-named field of `record` (other fields are left out). */
  runNamed(sql: string, record: object): void;
  /** The first row, or undefined. */
  row(sql: string, ...args: unknown[]): Row | undefined;
  /** The first column of every row. */
  column<T = string>(sql: string, ...args: unknown[]): T[];
}

type Bindable = null | number | bigint | string | NodeJS.ArrayBufferView;

export function statementCache(db: Database): Statements {
  const compiled = new Map<string, Statement>();
  const prepare = (sql: string) => {
    let statement = compiled.get(sql);
    if (!statement) compiled.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const parameterNames = new Map<string, string[]>();
  return {
    prepare,
    row: (sql, ...args) => prepare(sql).get(...(args as Bindable[])) as Row | undefined,
    column<T>(sql: string, ...args: unknown[]) {
      return prepare(sql)
        .all(...(args as Bindable[]))
        .map((row) => Object.values(row)[0] as T);
    },
    runNamed(sql, record) {
      let names = parameterNames.get(sql);
      if (!names) parameterNames.set(sql, (names = [...new Set(sql.match(/(?<=@)\w+/g))]));
      const fields = record as Record<string, Bindable>;
      prepare(sql).run(Object.fromEntries(names.map((name) => [name, fields[name]])));
    },
  };
}

/**
 * A client's text (a name, a folder) as stored: JSON text. SQLite keeps TEXT as UTF-8, which
 * cannot hold a lone UTF-16 surrogate (valid in a JSON string, so a client can send one); JSON
 * escapes it, so the name reads back exactly as it was sent.
 */
export const clientText = (text: string): string => JSON.stringify(text);
export const fromClientText = (stored: unknown): string => JSON.parse(stored as string) as string;
