/**
 * What the control plane sets and every instance reads, written once for both engines (the
 * StateStore port's tables, domain/state.ts; schema in migrations.ts step 5): the clocks' offsets,
 * the organizations' self-service plan bounds, prediction delays and forced outcomes. Structured
 * values are JSON text.
 */
import type { PlanBounds } from '../../domain/organization-record.js';
import type {
  Delays,
  DelayScope,
  ForcedOutcome,
  ForcedScope,
} from '../../domain/predictions/progress-record.js';
import type {
  ClockOffsetTable,
  ForcedOutcomeTable,
  PlanBoundsTable,
  ProgressDelayTable,
} from '../../domain/state.js';
import { column, records, type Row, run, type Works, upsert } from './work.js';

const parsed = <T>(text: unknown): T => JSON.parse(text as string) as T;

export const clockOffsetTable: Works<ClockOffsetTable> = {
  *get(organizationId) {
    const [offset] = yield* column<number>(
      'SELECT offset_ms FROM clock_offsets WHERE organization_id = ?',
      organizationId,
    );
    return offset === undefined ? undefined : Number(offset);
  },
  *set(organizationId, offsetMs) {
    yield* upsert('clock_offsets', ['organization_id'], {
      organization_id: organizationId,
      offset_ms: offsetMs,
    });
  },
  all: () =>
    records('SELECT organization_id, offset_ms FROM clock_offsets', (r: Row) => ({
      organizationId: r.organization_id as string,
      offsetMs: Number(r.offset_ms),
    })),
};

export const planBoundsTable: Works<PlanBoundsTable> = {
  *get(organizationId) {
    const [bounds] = yield* column(
      'SELECT bounds FROM plan_bounds WHERE organization_id = ?',
      organizationId,
    );
    return bounds === undefined ? undefined : parsed<PlanBounds>(bounds);
  },
  *set(organizationId, bounds) {
    yield* upsert('plan_bounds', ['organization_id'], {
      organization_id: organizationId,
      bounds: JSON.stringify(bounds),
    });
  },
  *delete(organizationId) {
    yield* run('DELETE FROM plan_bounds WHERE organization_id = ?', organizationId);
  },
  all: () =>
    records('SELECT organization_id, bounds FROM plan_bounds', (r: Row) => ({
      organizationId: r.organization_id as string,
      bounds: parsed<PlanBounds>(r.bounds),
    })),
};

export const progressDelayTable: Works<ProgressDelayTable> = {
  *get(scope, subjectId) {
    const [delays] = yield* column(
      'SELECT delays FROM progress_delays WHERE scope = ? AND subject_id = ?',
      scope,
      subjectId,
    );
    return delays === undefined ? undefined : parsed<Delays>(delays);
  },
  *set(scope, subjectId, delays) {
    yield* upsert('progress_delays', ['scope', 'subject_id'], {
      scope,
      subject_id: subjectId,
      delays: JSON.stringify(delays),
    });
  },
  *delete(scope, subjectId) {
    yield* run('DELETE FROM progress_delays WHERE scope = ? AND subject_id = ?', scope, subjectId);
  },
  *clear() {
    yield* run('DELETE FROM progress_delays');
  },
  all: () =>
    records('SELECT scope, subject_id, delays FROM progress_delays', (r: Row) => ({
      scope: r.scope as DelayScope,
      subjectId: r.subject_id as string,
      delays: parsed<Delays>(r.delays),
    })),
};

export const forcedOutcomeTable: Works<ForcedOutcomeTable> = {
  *get(scope, subjectId) {
    const [outcomes] = yield* column(
      'SELECT outcomes FROM forced_outcomes WHERE scope = ? AND subject_id = ?',
      scope,
      subjectId,
    );
    return outcomes === undefined ? undefined : parsed<ForcedOutcome[]>(outcomes);
  },
  *set(scope, subjectId, outcomes) {
    if (outcomes.length === 0) {
      yield* run('DELETE FROM forced_outcomes WHERE scope = ? AND subject_id = ?', scope, subjectId);
      return;
    }
    yield* upsert('forced_outcomes', ['scope', 'subject_id'], {
      scope,
      subject_id: subjectId,
      outcomes: JSON.stringify(outcomes),
    });
  },
  *clear() {
    yield* run('DELETE FROM forced_outcomes');
  },
  all: () =>
    records('SELECT scope, subject_id, outcomes FROM forced_outcomes', (r: Row) => ({
      scope: r.scope as ForcedScope,
      subjectId: r.subject_id as string,
      outcomes: parsed<ForcedOutcome[]>(r.outcomes),
    })),
};
