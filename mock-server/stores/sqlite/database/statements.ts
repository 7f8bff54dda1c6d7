/**
 * Statements compiled once and kept, with the answers of reads kept until the next write
 * (read-memo.ts).
 */
import type { Database, Statement } from './node-sqlite.js';
import { ReadMemo } from '../../tables/read-memo.js';

export type Row = Record<string, unknown>;

/** What the tables call on a statement. */
export type PreparedStatement = Pick<Statement, 'run' | 'get' | 'all'>;

/** The part of a database the tables use: statements compiled once and kept (SQL text -> statement). */
export interface Statements {
  prepare(sql: string): PreparedStatement;
  /** Runs a statement with `@name` parameters, binding each from the like-named field of `record` (other fields are left out). */
  runNamed(sql: string, record: object): void;
  /** The first row, or undefined. */
  row(sql: string, ...args: unknown[]): Row | undefined;
  /** The first column of every row. */
  column<T = string>(sql: string, ...args: unknown[]): T[];
  /** `map` of every row, kept with the rows until the next write (for the reads nearly every request makes). */
  records<T>(sql: string, map: (row: Row) => T, ...args: unknown[]): T[];
  /** Runs several statements (no arguments); every kept answer is forgotten first. */
  exec(sql: string): void;
  /** Forgets every kept answer (a rollback may have undone what they read). */
  forget(): void;
}

type Bindable = null | number | bigint | string | NodeJS.ArrayBufferView;

/** A SELECT only reads; anything else (a write, a WITH, a PRAGMA) is taken as a write. */
export const READ_ONLY = /^\s*SELECT\b/i;

export function statementCache(db: Database, memo: ReadMemo = new ReadMemo()): Statements {
  const natives = new Map<string, Statement>();
  const native = (sql: string) => {
    let statement = natives.get(sql);
    if (!statement) natives.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const compiled = new Map<string, PreparedStatement>();
  /** SQL records() has found to be a read: checked once, not on every request. */
  const checkedReads = new Set<string>();
  const prepare = (sql: string) => {
    let statement = compiled.get(sql);
    if (!statement) {
      statement = READ_ONLY.test(sql) ? remembered(native(sql), sql, memo) : forgetting(native(sql), memo);
      compiled.set(sql, statement);
    }
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
    records(sql, map, ...args) {
      if (!checkedReads.has(sql)) {
        if (!READ_ONLY.test(sql)) throw new Error(`records() is for reads: ${sql}`);
        checkedReads.add(sql);
      }
      return memo.records(sql, args, () => native(sql).all(...(args as Bindable[])) as Row[], map);
    },
    exec(sql) {
      memo.written();
      db.exec(sql);
    },
    forget: () => memo.written(),
    runNamed(sql, record) {
      let names = parameterNames.get(sql);
      if (!names) parameterNames.set(sql, (names = [...new Set(sql.match(/(?<=@)\w+/g))]));
      const fields = record as Record<string, Bindable>;
      prepare(sql).run(Object.fromEntries(names.map((name) => [name, fields[name]])));
    },
  };
}

/** A read whose answers `memo` keeps. */
function remembered(native: Statement, sql: string, memo: ReadMemo): PreparedStatement {
  const allSql = `all ${sql}`;
  const getSql = `get ${sql}`;
  return {
    run: (...args: Bindable[]) => native.run(...args),
    all: (...args: Bindable[]) => memo.rows(allSql, args, () => native.all(...args) as Row[]),
    get: (...args: Bindable[]) =>
      memo.rows(getSql, args, () => {
        const row = native.get(...args) as Row | undefined;
        return row === undefined ? [] : [row];
      })[0],
  } as PreparedStatement;
}

/** A write: every kept answer is forgotten before it runs (and so also when it fails half-way). */
function forgetting(native: Statement, memo: ReadMemo): PreparedStatement {
  return {
    run: (...args: Bindable[]) => (memo.written(), native.run(...args)),
    all: (...args: Bindable[]) => (memo.written(), native.all(...args)),
    get: (...args: Bindable[]) => (memo.written(), native.get(...args)),
  } as PreparedStatement;
}
