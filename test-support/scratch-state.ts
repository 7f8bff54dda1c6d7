/** A real SQLite state store in a temporary folder, for tests of what works on the StateStore port. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../mock-server/stores/sqlite/database/open-database.js';
import { SqliteStateStore } from '../mock-server/stores/sqlite/sqlite-state-store.js';

export function scratchState(): SqliteStateStore & { dispose(): Promise<void> } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scratch-state-'));
  const state = new SqliteStateStore(openDatabase(dir));
  return Object.assign(state, {
    async dispose() {
      await state.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
