/**
 * SIGKILL under a write load loses no acknowledged write: a few rounds with fixed seeds (the
 * longer, randomly seeded run is `npm run crash-test`). Each round kills a real mock process at a
 * seeded moment, starts it again on the same data folder and checks every acknowledged creation,
 * delete, revocation, resumable part and completed upload (test-support/crash/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { expectNoAcknowledgedWriteLost, type CrashWorld } from '../../../test-support/crash/crash-round.js';
import { AcknowledgedWrites } from '../../../test-support/crash/ledger.js';

const world: CrashWorld = {
  root: path.resolve(import.meta.dirname, '../../..'),
  dataDir: mkdtempSync(path.join(os.tmpdir(), 'crash-recovery-')),
  ledger: new AcknowledgedWrites(),
};
afterAll(() => rmSync(world.dataDir, { recursive: true, force: true }));

it('three SIGKILLs under load lose no acknowledged creation, undo no delete and no revocation', async () => {
  await expectNoAcknowledgedWriteLost(world, [11, 12, 13], expect);
}, 300_000);
