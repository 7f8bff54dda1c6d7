/**
 * How the tables store a record's fields, the same on both engines:
 *
 *   Stored                          how one value is written into its column and read back
 *   AS_IS, NUMBER, CLIENT_TEXT, JSON_TEXT, FLAG
 *   recordTable(table, fields, stored, kept)   a table of records kept whole under their `id`
 *   valueTable(table, fields, stored)           a table of one value per key
 */
import { clientText, fromClientText } from './client-text.js';
import { type Arg, column, first, records, type Row, run, type Work, type Works, upsert } from './work.js';

export interface Stored {
  write(value: unknown): Arg;
  read(stored: unknown): unknown;
}

/** A field no column keeps, every record having the same value: `read` answers it. */
type Unstored = Pick<Stored, 'read'>;

const AS_IS: Stored = { write: (value) => value as Arg, read: (stored) => stored };

/** PostgreSQL answers its bigints as strings. */
export const NUMBER: Stored = { write: (value) => value as number, read: Number };

const nullKept = (write: (value: unknown) => Arg, read: (stored: unknown) => unknown): Stored => ({
  write: (value) => (value === null ? null : write(value)),
  read: (stored) => (stored === null ? null : read(stored)),
});

export const CLIENT_TEXT = nullKept((text) => clientText(text as string), fromClientText);

/** A structured value as JSON text, null kept as NULL. */
export const JSON_TEXT = nullKept(JSON.stringify, (text) => JSON.parse(text as string));

/** SQLite's INTEGER 1, PostgreSQL's boolean true (which takes 1 and 0 as true and false). */
export const FLAG: Stored = {
  write: (flag) => (flag ? 1 : 0),
  read: (stored) => stored === 1 || stored === true,
};

const columnOf = (field: string) => field.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);

/**
 * A table of whole records: `read` (a row as its record) for its own queries, and the `methods`
 * every such table shares. `fields` names every field of the record in order, each stored in the
 * column of its snake_case name as `stored` says (AS_IS when it says nothing); `kept` columns are
 * written by the insert only, never changed by a later put.
 */
export function recordTable<T extends { id: string }>(
  table: string,
  fields: string,
  stored: { [K in keyof T]?: Stored | Unstored } = {},
  kept: readonly string[] = [],
) {
  const how = stored as Record<string, Stored | Unstored>;
  const columns = fields.split(' ').map((field) => [field, columnOf(field), how[field] ?? AS_IS] as const);
  const read = (row: Row): T => {
    const record: Record<string, unknown> = {};
    for (const [field, column, as] of columns) record[field] = as.read(row[column]);
    return record as T;
  };
  const methods = {
    get: (id: string) => first(`SELECT * FROM ${table} WHERE id = ?`, read, id),
    *put(record: T): Work<void> {
      const row: Record<string, Arg> = {};
      for (const [field, column, as] of columns)
        if ('write' in as) row[column] = as.write((record as Record<string, unknown>)[field]);
      yield* upsert(table, ['id'], row, kept);
    },
    *delete(id: string): Work<void> {
      yield* run(`DELETE FROM ${table} WHERE id = ?`, id);
    },
  };
  return { read, methods };
}

/**
 * A table of one value per key: `fields` names each field of the port's records by its column, the
 * keys first and the value last. Its methods take the keys in that order (`set` the value after
 * them), and a value written as null removes its row; `all` answers every row as such a record.
 * `T` names the methods a table takes from it.
 */
export function valueTable<T>(
  table: string,
  fields: Record<string, string>,
  stored: Stored = JSON_TEXT,
): Works<T> {
  const named = Object.entries(fields);
  const [, valueColumn] = named[named.length - 1];
  const keys = named.slice(0, -1).map(([, keyColumn]) => keyColumn);
  const where = `WHERE ${keys.map((keyColumn) => `${keyColumn} = ?`).join(' AND ')}`;
  const methods = {
    *get(...key: string[]) {
      const [value] = yield* column(`SELECT ${valueColumn} FROM ${table} ${where}`, ...key);
      return value === undefined ? undefined : stored.read(value);
    },
    *set(...keyAndValue: unknown[]) {
      const key = keyAndValue.slice(0, -1) as string[];
      const value = stored.write(keyAndValue[key.length]);
      if (value === null) return yield* methods.delete(...key);
      const row = Object.fromEntries(keys.map((keyColumn, i) => [keyColumn, key[i]]));
      yield* upsert(table, keys, { ...row, [valueColumn]: value });
    },
    *delete(...key: string[]) {
      yield* run(`DELETE FROM ${table} ${where}`, ...key);
    },
    *clear() {
      yield* run(`DELETE FROM ${table}`);
    },
    all: () =>
      records(`SELECT ${Object.values(fields).join(', ')} FROM ${table}`, (r) =>
        Object.fromEntries(named.map(([field, c]) => [field, c === valueColumn ? stored.read(r[c]) : r[c]])),
      ),
  };
  return methods as unknown as Works<T>;
}
