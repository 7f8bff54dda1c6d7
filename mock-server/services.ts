import type { MockConfig } from './config.js';
import { MockClock } from './domain/clock.js';
import { RequestRateLimit } from './domain/abuse-limits.js';
import { RequestJournal } from './control/request-journal.js';
import type { ObjectStore } from './domain/object-store.js';
import type { StateStore } from './domain/state.js';
import { makeDataFolders } from './stores/files/make-data-folder.js';
import { dataLayout } from './stores/data-layout.js';
import { createDecoderPools, type DecoderPools } from './services/decoder-pools.js';
import { wireDomainServices, type ClosableRunner } from './services/domain-services.js';
import { openObjectStore } from './services/open-object-store.js';
import { openState } from './services/open-state.js';
import {
  NO_SWEEP,
  resumeKeptFolder,
  type BackgroundSweep,
  type KeptFolder,
} from './services/resume-kept-folder.js';
import { snapshotFile } from './services/snapshot-file.js';
import { instanceLifecycle } from './services/instance-lifecycle.js';
import { instanceMetrics } from './services/metrics-sources.js';
import { Seeding } from './services/seeding.js';
import { snapshotService } from './services/snapshot-swap.js';

/** Everything the HTTP layer and the control plane work with, wired once (the composition root). */
export type Services = Awaited<ReturnType<typeof createServices>>;

export interface ServiceOverrides {
  runner?: ClosableRunner;
  /**
   * Pools owned by the caller, instead of two of the mock's own: several mocks of one process (a
   * test suite's) then start their children once, not once per mock. The mock leaves them open when
   * it closes, and the limits they were made with apply, not the config's decoder settings.
   */
  decoderPools?: DecoderPools;
  /** Keep state in the data folder across restarts (set when --data-dir is given). */
  persistent?: boolean;
  /**
   * Wraps the object store the config names (tests: a store that answers slowly, as a remote one
   * does, where the start-up sweep asks it about every stored object).
   */
  wrapStore?: (store: ObjectStore) => ObjectStore;
  /** Told when the start-up sweep, running in the background, fails (it is run again at the next start). */
  onSweepFailed?: (error: unknown) => void;
  /** Told while a shared PostgreSQL does not answer at start-up (--database-wait-ms). */
  onDatabaseWait?: (line: string) => void;
}

/** How the jobs of predictions and conversions are claimed (domain/jobs/job-worker.ts). */
const JOB_SETTINGS = { concurrency: 256, pollMs: 250 };
/** Longer than any request or job takes to write a file and commit the row that refers to it. */
const SHARED_SWEEP_GRACE_MS = 60 * 60 * 1000;

export async function createServices(config: MockConfig, overrides: ServiceOverrides = {}) {
  // With its own SQLite file the mock owns its data folder alone; on a shared PostgreSQL, other
  // instances may be running: what one-owner start-up steps would clear may be theirs.
  const soleOwner = config.databaseUrl === undefined;
  const { fresh, ...foundations } = await openFoundations(config, overrides);
  const { state, pools } = foundations;
  const borrowed = overrides.decoderPools;
  const wired = {
    ...foundations,
    ...wireDomainServices({ ...foundations, jobs: JOB_SETTINGS, runner: overrides.runner }),
  };
  const { worker, runner } = wired;
  const seeding = new Seeding(config, state);
  const sweep = await seedOrResume(fresh, seeding, state, {
    ...wired,
    soleOwner,
    sharedGraceMs: SHARED_SWEEP_GRACE_MS,
    onSweepFailed: overrides.onSweepFailed,
  });
  const snapshots = snapshotService({ ...wired, sweep, soleOwner });
  /** Stops what this mock opened: its database, and the children it did not borrow. */
  const release = async () => {
    if (overrides.runner || !borrowed) await runner.close?.();
    if (!borrowed) await pools.convert.close();
    await state.close();
  };
  // A snapshot named at start replaces whatever the data folder or the seed put in place.
  if (config.snapshot) {
    try {
      await snapshots.load(await snapshotFile(config.snapshot));
    } catch (error) {
      // Nothing of a mock that did not start may stay open (its database, its children).
      await release();
      throw error;
    }
  }
  // An instance that only answers the API never claims a job; a reset or a swap restarts the worker
  // only when it was claiming.
  if (config.role !== 'api') worker.start();

  return {
    ...wired,
    snapshots,
    metrics: instanceMetrics(state, worker, pools),
    journal: new RequestJournal(state.journal),
    /** Requests per API key per second (off unless --rate-limit-per-second is set). */
    rateLimit: new RequestRateLimit(state, config.rateLimitPerSecond, config.rateLimitInstances),
    /** For the banner and startMock: the state keeps only the keys' hashes. */
    seededKeys: () => seeding.keys(),
    ...instanceLifecycle({ ...wired, seeding, sweep, release }),
  };
}

/**
 * A fresh data folder is seeded; a kept one resumes, its start-up sweep running in the background.
 * The seeding is a replacement of the state: on a shared database another instance's reset may be
 * between its clear and its seed, and the two seeds must not meet.
 */
async function seedOrResume(
  fresh: boolean,
  seeding: Seeding,
  state: StateStore,
  folder: KeptFolder,
): Promise<BackgroundSweep> {
  if (fresh) {
    await state.replacing(() => seeding.seedOnce());
    return NO_SWEEP;
  }
  await seeding.readKept();
  return resumeKeptFolder(folder);
}

/**
 * What the domain stands on, opened in this order: the data folder, the state (and whether it was
 * ever seeded), the clock kept in it, the object store, and the decoder children.
 */
async function openFoundations(config: MockConfig, overrides: ServiceOverrides) {
  const paths = dataLayout(config.dataDir);
  await makeDataFolders(config.dataDir, paths.folders);
  const state = await openState(config, overrides.onDatabaseWait);
  // A data folder is seeded once, then kept.
  const fresh = (await state.seed.seededAt()) === undefined;
  // The mock's clock, its offsets kept in the state: the mock's own under the empty organization id.
  const clock = new MockClock({
    load: (orgId) => state.clockOffsets.get(orgId ?? ''),
    save: (offset, orgId) => state.clockOffsets.set(orgId ?? '', offset),
    alone: (orgId, work) =>
      state.transaction(async () => {
        await state.clockOffsets.lock(orgId ?? '');
        return work();
      }),
  });
  await clock.refresh();
  const made = await openObjectStore(config, paths, overrides.persistent ?? false, () => clock.now());
  const store = overrides.wrapStore?.(made) ?? made;
  const pools = overrides.decoderPools ?? createDecoderPools(config);
  return { config, paths, state, fresh, clock, store, pools };
}
