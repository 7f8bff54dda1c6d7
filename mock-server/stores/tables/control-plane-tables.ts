/**
 * What the control plane sets and every instance reads, written once for both engines (the
 * StateStore port's tables, domain/state.ts; schema in migrations.ts step 5): the clocks' offsets,
 * the organizations' self-service plan bounds, prediction delays and forced outcomes. Each is one
 * value per key, so one valueTable serves all four.
 */
import type {
  ClockOffsetTable,
  ForcedOutcomeTable,
  PlanBoundsTable,
  ProgressDelayTable,
} from '../../domain/state.js';
import { JSON_TEXT, NUMBER, type Stored } from './columns.js';
import { column, records, run, type Works, upsert } from './work.js';

/**
 * A table of one value per key: `fields` names each field of the port's records by its column, the
 * keys first and the value last. Its methods take the keys in that order (`set` the value after
 * them), and a value written as null removes its row; `all` answers every row as such a record.
 */
function valueTable<T>(table: string, fields: Record<string, string>, stored: Stored = JSON_TEXT): Works<T> {
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

export const clockOffsetTable = valueTable<ClockOffsetTable>(
  'clock_offsets',
  { organizationId: 'organization_id', offsetMs: 'offset_ms' },
  NUMBER,
);

export const planBoundsTable = valueTable<PlanBoundsTable>('plan_bounds', {
  organizationId: 'organization_id',
  bounds: 'bounds',
});

export const progressDelayTable = valueTable<ProgressDelayTable>('progress_delays', {
  scope: 'scope',
  subjectId: 'subject_id',
  delays: 'delays',
});

/** An empty list of outcomes is no row. */
export const forcedOutcomeTable = valueTable<ForcedOutcomeTable>(
  'forced_outcomes',
  { scope: 'scope', subjectId: 'subject_id', outcomes: 'outcomes' },
  {
    write: (outcomes) => ((outcomes as unknown[]).length === 0 ? null : JSON.stringify(outcomes)),
    read: JSON_TEXT.read,
  },
);
