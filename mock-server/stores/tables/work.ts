/**
 * How one piece of table code runs on both engines. A table's method is written once, as a
 * generator that yields the statements it needs and takes back their answers:
 *
 *   *get(id) { return yield* first('SELECT * FROM images WHERE id = ?', toImage, id); }
 *
 * SQLite runs it synchronously (runNow: node:sqlite answers each statement at once, so a whole
 * method runs inside one turn of the transaction gate, and its reads can be kept in the read memo);
 * PostgreSQL awaits each statement (runLater). The statements are one text in the two engines'
 * common SQL, `?` for each argument; what differs is in dialect.ts.
 *
 *   rows(sql, ...args)            every row
 *   records(sql, map, ...args)    `map` of every row (SQLite keeps a read's records until the next write)
 *   first(sql, map, ...args)      `map` of the first row, or undefined
 *   column(sql, ...args)          the first column of every row
 *   run(sql, ...args)             a write: how many rows it changed
 *   upsert(table, key, row)       a row written whole, inserted or updating the one of its key
 *   script(sql)                   several statements, no arguments (a migration step)
 *   atomic(work)                  `work` as one transaction (joining the caller's, if any)
 */
export type Row = Record<string, unknown>;
export type Arg = string | number | null;

export type Query =
  | { kind: 'rows'; sql: string; args: Arg[]; map?: (row: Row) => unknown }
  | { kind: 'run'; sql: string; args: Arg[] }
  | { kind: 'script'; sql: string }
  | { kind: 'atomic'; work: Work<unknown> };

export type Work<T> = Generator<Query, T, unknown>;

/** A port's table as written once: each method a Work instead of a promise. */
export type Works<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Work<R> : never;
};

export function* rows(sql: string, ...args: Arg[]): Work<Row[]> {
  return (yield { kind: 'rows', sql, args }) as Row[];
}

export function* records<T>(sql: string, map: (row: Row) => T, ...args: Arg[]): Work<T[]> {
  return (yield { kind: 'rows', sql, args, map }) as T[];
}

export function* first<T>(sql: string, map: (row: Row) => T, ...args: Arg[]): Work<T | undefined> {
  return (yield* records(sql, map, ...args))[0];
}

export function* column<T = string>(sql: string, ...args: Arg[]): Work<T[]> {
  return (yield* rows(sql, ...args)).map((row) => Object.values(row)[0] as T);
}

export function* run(sql: string, ...args: Arg[]): Work<number> {
  return (yield { kind: 'run', sql, args }) as number;
}

/**
 * Writes `row` (column: value) into `table`: a new row, or the one with the same `key` columns gets
 * every column of `row` but those and the `kept` ones, which only an insert writes.
 */
export function* upsert(
  table: string,
  key: readonly string[],
  row: Record<string, Arg>,
  kept: readonly string[] = [],
): Work<number> {
  const columns = Object.keys(row);
  const changing = columns.filter((column) => !key.includes(column) && !kept.includes(column));
  return yield* run(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${marks(columns)})
     ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${changing.map((c) => `${c} = excluded.${c}`).join(', ')}`,
    ...Object.values(row),
  );
}

export function* script(sql: string): Work<void> {
  yield { kind: 'script', sql };
}

export function* atomic<T>(work: Work<T>): Work<T> {
  return (yield { kind: 'atomic', work }) as T;
}

/** `?, ?, ?` for a list of arguments (an IN list). */
export const marks = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

/** Runs `work` with an engine that answers each statement at once. */
export function runNow<T>(work: Work<T>, answer: (query: Query) => unknown): T {
  let step = work.next();
  while (!step.done) step = work.next(answer(step.value));
  return step.value;
}

/** Runs `work` with an engine that answers each statement later. */
export async function runLater<T>(work: Work<T>, answer: (query: Query) => Promise<unknown>): Promise<T> {
  let step = work.next();
  while (!step.done) step = work.next(await answer(step.value));
  return step.value;
}

/** The port's table: each method runs its Work through `perform`. */
export function bind<T>(works: Works<T>, perform: (work: Work<unknown>) => Promise<unknown>): T {
  const table: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(works as Record<string, (...args: unknown[]) => Work<unknown>>))
    table[name] = (...args: unknown[]) => perform(method(...args));
  return table as T;
}
