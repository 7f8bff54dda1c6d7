/**
 * What the mock marks for itself while it runs, written once for both engines (the StateStore
 * port's tables, domain/state.ts; schema in migrations.ts): when the seed was loaded, the
 * marks requests hold while they work, and the outcomes held until a prediction's Nth poll.
 */
import type { PollHold, ReadyOutcome } from '../../domain/predictions/progress-record.js';
import type { HeldMarkTable, PollHoldTable, SeedTable } from '../../domain/state.js';
import { NUMBER, valueTable } from './columns.js';
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

const heldMarks = valueTable<{
  get: HeldMarkTable['heldUntil'];
  set: HeldMarkTable['hold'];
  delete: HeldMarkTable['release'];
}>('held_marks', { kind: 'kind', group: 'group_key', id: 'id', untilMs: 'until_ms' }, NUMBER);

export const heldMarkTable: Works<HeldMarkTable> = {
  *countHeld(kind, group, nowMs) {
    const [count] = yield* column(
      'SELECT count(*) FROM held_marks WHERE kind = ? AND group_key = ? AND until_ms > ?',
      kind,
      group,
      nowMs,
    );
    return Number(count);
  },
  heldUntil: heldMarks.get,
  hold: heldMarks.set,
  release: heldMarks.delete,
  *clear(kind) {
    yield* run('DELETE FROM held_marks WHERE kind = ?', kind);
  },
};

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
