/**
 * What a database kept in `settings` before migration step 5 gave each its own table, and what
 * the StateStore port must read from those tables once the step has copied it: one case of every
 * key the mock wrote, for the migration tests of both engines.
 */
import { expect } from 'vitest';
import type { StateStore } from '../mock-server/domain/state.js';

const HELD = { needed: 3, outcome: { status: 'FAILED', error: 'a "quoted" é' } };

/** Key and value as the mock wrote them (each stored as client text: a JSON string). */
export const SETTINGS_BEFORE_STEP_5: Array<[string, string]> = [
  ['clock_offset_ms', '86400000'],
  ['clock_offset_ms:org', '-1500.5'],
  ['seeded_at', '2026-11-25T12:00:00.000Z'],
  ['self_service_plan:org', '{"storageCapImages":5,"monthlyAnalysisCap":10}'],
  ['slot/org/7f1c', '1764000000000'],
  ['completing/org/img-1', '1764000000001'],
  ['held-outcome/pred-1', JSON.stringify(HELD)],
  ['progress/defaults', '{"startDelayMs":1,"runDelayMs":2}'],
  ['progress/organization/org', '{"startDelayMs":3,"runDelayMs":4,"completeAfterPolls":2}'],
  ['progress/prediction/pred-1', '{"startDelayMs":5,"runDelayMs":6}'],
  ['progress/forced-next/org', '[{"status":"FAILED","error":"boom"},{"status":"COMPLETED"}]'],
  ['progress/forced-on/pred-1', '{"status":"COMPLETED"}'],
];

/** Fails unless every setting above reads back through its table. */
export async function expectCopiedIntoTables(state: StateStore): Promise<void> {
  expect(await state.clockOffsets.get('')).toBe(86_400_000);
  expect(await state.clockOffsets.get('org')).toBe(-1500.5);
  expect(await state.seed.seededAt()).toBe('2026-11-25T12:00:00.000Z');
  expect(await state.planBounds.get('org')).toEqual({ storageCapImages: 5, monthlyAnalysisCap: 10 });
  expect(await state.heldMarks.heldUntil('slot', 'org', '7f1c')).toBe(1_764_000_000_000);
  expect(await state.heldMarks.heldUntil('completing', 'org', 'img-1')).toBe(1_764_000_000_001);
  expect(await state.pollHolds.get('pred-1')).toEqual(HELD);
  expect(await state.progressDelays.get('defaults', '')).toEqual({ startDelayMs: 1, runDelayMs: 2 });
  expect(await state.progressDelays.get('organization', 'org')).toEqual({
    startDelayMs: 3,
    runDelayMs: 4,
    completeAfterPolls: 2,
  });
  expect(await state.progressDelays.get('prediction', 'pred-1')).toEqual({ startDelayMs: 5, runDelayMs: 6 });
  expect(await state.forcedOutcomes.get('organization', 'org')).toEqual([
    { status: 'FAILED', error: 'boom' },
    { status: 'COMPLETED' },
  ]);
  expect(await state.forcedOutcomes.get('prediction', 'pred-1')).toEqual([{ status: 'COMPLETED' }]);
}
