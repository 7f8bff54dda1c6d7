/**
 * The crash test's ledger on the shared engine: the same SIGKILL rounds as stores/crash-recovery.test.ts,
 * with the mock's state in PostgreSQL (which stays up: it is the mock that dies). No acknowledged
 * write may be lost, and a job of the killed process is taken back when its lease runs out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectNoAcknowledgedWriteLost, type CrashWorld } from '../../../test-support/crash/crash-round.js';
import { AcknowledgedWrites } from '../../../test-support/crash/ledger.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';

let postgres: TestPostgres;
const world: CrashWorld = {
  root: path.resolve(import.meta.dirname, '../../..'),
  dataDir: mkdtempSync(path.join(os.tmpdir(), 'crash-recovery-pg-')),
  ledger: new AcknowledgedWrites(),
};

beforeAll(async () => {
  postgres = await startTestPostgres();
  // A short lease: the killed process's jobs go back to the queue within a second.
  world.mockArgs = ['--database-url', await postgres.newDatabase(), '--job-lease-ms', '1000'];
}, 120_000);
afterAll(async () => {
  await postgres?.stop();
  rmSync(world.dataDir, { recursive: true, force: true });
});

it('three SIGKILLs under load on PostgreSQL lose no acknowledged creation, undo no delete and no revocation', async () => {
  await expectNoAcknowledgedWriteLost(world, [21, 22, 23], expect);
}, 300_000);
