/**
 * Answers of read statements kept in memory until the next write, so that the reads nearly every
 * request makes (the clock's offsets, the model list, the record a GET names) cost a map lookup
 * instead of a statement (the state store was about a quarter of a GET's time).
 *
 * Exact, not merely fresh enough, on each engine for its own reason:
 * - SQLite: one process owns a SQLite folder (stores/object-store/folder-lock.ts) and this
 *   connection is its only one, so every change to the database passes through here. A statement
 *   that writes forgets every answer before it runs (sqlite/database/statements.ts), and so does a
 *   transaction that rolls back (a read inside it may have seen rows the rollback undid) and a table
 *   emptied by hand. Statements are synchronous, so nothing can change between a read and its keeping.
 * - PostgreSQL: other instances write to the database, so what is kept holds only under the
 *   database snapshot it was read at (postgres/snapshot-memo.ts says how each request checks it).
 *
 * Rows are handed out as copies (one level: a row's values are strings, numbers, null or bytes), so
 * a caller that changes what it was given changes nothing kept.
 */
import type { Row } from './work.js';

/** How much the memo keeps: it is for the small reads every request makes, not for listings. */
export interface MemoLimits {
  /** Answers kept at most (0 keeps none); past it every answer is dropped. */
  entries: number;
  /** Rows kept in all at most; past it every answer is dropped. */
  rows: number;
  /** An answer of more rows than this is not kept (a listing, a sweep's page). */
  rowsPerAnswer: number;
}

export class ReadMemo {
  private readonly answers = new Map<string, { rows: Row[]; bytes: boolean }>();
  /** Records made from kept rows, by the function that made them: mapping is most of a hot read's cost. */
  private readonly made = new Map<(row: Row) => unknown, Map<string, unknown[]>>();
  private entries = 0;
  private keptRows = 0;

  constructor(private readonly limits: MemoLimits = { entries: 10_000, rows: 50_000, rowsPerAnswer: 64 }) {}

  /** The rows `read` answers for `sql` with `args`, from memory while nothing has been written. */
  rows(sql: string, args: readonly unknown[], read: () => Row[]): Row[] {
    const key = memoKey(sql, args);
    if (key === undefined || this.limits.entries === 0) return read();
    let kept = this.answers.get(key);
    if (kept === undefined) {
      const fresh = read();
      if (!this.room(fresh.length)) return fresh;
      const rows = fresh.map(fastRow);
      kept = { rows, bytes: rows.some((row) => Object.values(row).some((v) => v instanceof Uint8Array)) };
      this.answers.set(key, kept);
    }
    return kept.bytes ? kept.rows.map(copyPlain) : kept.rows.map((row) => ({ ...row }));
  }

  /**
   * `map` of each row `read` answers, kept like the rows themselves and handed out as copies
   * (copyPlain): for records made of strings, numbers, booleans, null, arrays and plain objects.
   */
  records<T>(sql: string, args: readonly unknown[], read: () => Row[], map: (row: Row) => T): T[] {
    const kept = this.find(sql, args, map);
    if (kept !== undefined) return kept;
    const fresh = read().map(map);
    return this.keep(sql, args, map, fresh) ? fresh.map(copyPlain) : fresh;
  }

  /** Copies of the records `map` made of what `sql` with `args` answered, if they are kept. */
  find<T>(sql: string, args: readonly unknown[], map: (row: Row) => T): T[] | undefined {
    const key = memoKey(sql, args);
    if (key === undefined) return undefined;
    const kept = this.made.get(map)?.get(key) as T[] | undefined;
    return kept?.map(copyPlain);
  }

  /**
   * Keeps `records`, `map` of what `sql` with `args` answered; whether it did. Kept records are the
   * memo's own: the caller hands out copies of them, not them.
   */
  keep<T>(sql: string, args: readonly unknown[], map: (row: Row) => T, records: T[]): boolean {
    const key = memoKey(sql, args);
    if (key === undefined || this.limits.entries === 0 || !this.room(records.length)) return false;
    let byKey = this.made.get(map);
    if (byKey === undefined) this.made.set(map, (byKey = new Map()));
    byKey.set(key, records);
    return true;
  }

  /** The database has changed, or may have: every kept answer goes. */
  written(): void {
    if (this.entries) this.forget();
  }

  /** Answers kept now. */
  get size(): number {
    return this.entries;
  }

  /** Whether an answer of `rows` rows is kept; counted as kept when it is. */
  private room(rows: number): boolean {
    if (rows > this.limits.rowsPerAnswer) return false;
    if (this.entries >= this.limits.entries || this.keptRows + rows > this.limits.rows) this.forget();
    this.entries++;
    this.keptRows += rows;
    return true;
  }

  private forget(): void {
    this.answers.clear();
    this.made.clear();
    this.entries = 0;
    this.keptRows = 0;
  }
}

/**
 * The statement and its arguments as one string, each argument tagged with its type and length so
 * that no two different calls share a key; undefined (not kept) for an argument of another kind.
 */
export function memoKey(sql: string, args: readonly unknown[]): string | undefined {
  let key = sql;
  for (const arg of args) {
    switch (typeof arg) {
      case 'string':
        key += `\u0000s${arg.length}:${arg}`;
        break;
      case 'number':
        key += `\u0000n${arg}`;
        break;
      case 'bigint':
        key += `\u0000b${arg}`;
        break;
      default:
        if (arg !== null) return undefined;
        key += '\u0000z';
    }
  }
  return key;
}

/**
 * The row rebuilt as an ordinary object: node:sqlite's rows are dictionaries, which V8 copies and
 * reads many times slower (copying four model rows: 5.2 us against 0.15 us, measured on Node 22).
 */
function fastRow(row: Row): Row {
  const copy: Row = {};
  for (const name of Object.keys(row)) copy[name] = row[name];
  return copy;
}

/** A copy of a value made of strings, numbers, booleans, null, bytes, arrays and plain objects. */
export function copyPlain<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (ArrayBuffer.isView(value)) return (value as unknown as Uint8Array).slice() as T;
  if (Array.isArray(value)) return value.map(copyPlain) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyPlain((value as Record<string, unknown>)[key]);
  return copy as T;
}
