/**
 * What the mock marks for itself while it runs, written once for both engines (the StateStore
 * port's tables, domain/state.ts; schema in migrations.ts): when the seed was loaded, the
 * marks requests hold while they work, and the outcomes held until a prediction's Nth poll.
 */
import type { PollHold, ReadyOutcome } from '../../domain/predictions/progress-record.js';
import type { HeldMarkTable, PollHoldTable, SeedTable } from '../../domain/state.js';
import type { Dialect } from './dialect.js';
import { column, first, records, type Row, run, type Works, upsert } from './work.js';

export const seedTable: Works<SeedTable> = {
  *seededAt() {
    const [at] = yield* column('SELECT seeded_at FROM seed');
    return at;
  },
  *markSeeded(at) {
    yield* upsert('seed', ['single'], { single: 1, seeded_at: at });
  },
};

/** Marks held on the engine's clock (dialect.ts nowMs), never an instance's: every instance counts them alike. */
export function heldMarkTable(d: Dialect): Works<HeldMarkTable> {
  const held = `kind = ? AND group_key = ? AND until_ms > ${d.nowMs}`;
  return {
    *countHeld(kind, group) {
      const [count] = yield* column(`SELECT count(*) FROM held_marks WHERE ${held}`, kind, group);
      return Number(count);
    },
    *isHeld(kind, group, id) {
      return (yield* column(`SELECT 1 FROM held_marks WHERE ${held} AND id = ?`, kind, group, id)).length > 0;
    },
    *hold(kind, group, id, ttlMs) {
      yield* run(
        `INSERT INTO held_marks (kind, group_key, id, until_ms) VALUES (?, ?, ?, ${d.nowMs} + ?)
         ON CONFLICT (kind, group_key, id) DO UPDATE SET until_ms = excluded.until_ms`,
        kind,
        group,
        id,
        ttlMs,
      );
    },
    *release(kind, group, id) {
      yield* run('DELETE FROM held_marks WHERE kind = ? AND group_key = ? AND id = ?', kind, group, id);
    },
    *clear(kind) {
      yield* run('DELETE FROM held_marks WHERE kind = ?', kind);
    },
  };
}

export const pollHoldTable: Works<PollHoldTable> = {
  get: (predictionId) =>
    first('SELECT needed, outcome FROM poll_holds WHERE prediction_id = ?', toPollHold, predictionId),
  *put(predictionId, hold) {
    yield* upsert('poll_holds', ['prediction_id'], {
      prediction_id: predictionId,
      needed: hold.needed,
      outcome: JSON.stringify(hold.outcome),
    });
  },
  *delete(predictionId) {
    yield* run('DELETE FROM poll_holds WHERE prediction_id = ?', predictionId);
  },
  all: () =>
    records('SELECT prediction_id, needed, outcome FROM poll_holds', (r: Row) => ({
      predictionId: r.prediction_id as string,
      ...toPollHold(r),
    })),
};

function toPollHold(r: Row): PollHold {
  return { needed: Number(r.needed), outcome: JSON.parse(r.outcome as string) as ReadyOutcome };
}
