/**
 * What the control plane sets and every instance reads, written once for both engines (the
 * StateStore port's tables, domain/state.ts; schema in migrations.ts): the clocks' offsets,
 * the organizations' self-service plan bounds, prediction delays and forced outcomes. Each is one
 * value per key, so one valueTable serves all four.
 */
import type {
  ClockOffsetTable,
  ForcedOutcomeTable,
  PlanBoundsTable,
  ProgressDelayTable,
} from '../../domain/state.js';
import { JSON_TEXT, NUMBER, valueTable } from './columns.js';
import type { Works } from './work.js';

/** `lock` takes nothing here: one process owns a SQLite database (the PostgreSQL store takes its own). */
export const clockOffsetTable: Works<ClockOffsetTable> = {
  ...valueTable<Omit<ClockOffsetTable, 'lock'>>(
    'clock_offsets',
    { organizationId: 'organization_id', offsetMs: 'offset_ms' },
    NUMBER,
  ),
  *lock() {},
};

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
