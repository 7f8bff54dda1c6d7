/**
 * A held mark lives on the state store's clock, not on the clock of the instance that took it: an
 * instance whose clock runs behind the others' does not see its live marks lapse at once for them
 * (an upload's storage slot uncounted, the cap passed), nor one ahead keep its dead ones counting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { openDatabase } from '../stores/sqlite/database/open-database.js';
import { SqliteStateStore } from '../stores/sqlite/sqlite-state-store.js';
import { HeldMarks } from './held-marks.js';

const DAY_MS = 86_400_000;

let dir: string;
let state: SqliteStateStore;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'held-marks-'));
  state = new SqliteStateStore(openDatabase(dir));
});
afterEach(async () => {
  vi.useRealTimers();
  await state.close();
  rmSync(dir, { recursive: true, force: true });
});

it('counts a mark taken by an instance whose clock runs a day behind the store, for its whole life', async () => {
  const marks = new HeldMarks(state.heldMarks, 'slot');
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - DAY_MS });
  const behind = await marks.hold('org-1', 'upload-behind');
  vi.useRealTimers();
  // taken for a minute of the store's clock, whatever the taker's own clock said
  expect(await marks.count('org-1')).toBe(1);
  expect(await marks.isHeld('org-1', 'upload-behind')).toBe(true);
  await behind.release();
  expect(await marks.count('org-1')).toBe(0);
});
