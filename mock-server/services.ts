import { readFile } from 'node:fs/promises';
import type { MockConfig } from './config.js';
import { seedKeysLoaded } from './exposure.js';
import { MockClock } from './domain/clock.js';
import type { ImageService } from './domain/images/image-service.js';
import type { PredictionService } from './domain/predictions/prediction-service.js';
import type { ExportService } from './domain/exports/export-service.js';
import type { ProgressControls } from './domain/predictions/progress-controls.js';
import { applySeed, parseSeed, type Seed } from './domain/seed.js';
import type { OrganizationAdmin } from './domain/organization-admin.js';
import { RequestRateLimit } from './domain/abuse-limits.js';
import { RequestJournal } from './control/request-journal.js';
import type { ShareService } from './domain/shares/share-service.js';
import type { StateStore } from './domain/state.js';
import type { ObjectStore } from './domain/object-store.js';
import { makeDataFolders } from './stores/files/make-data-folder.js';
import { dataLayout, type DataLayout } from './stores/data-layout.js';
import { SnapshotService } from './domain/snapshots/snapshot-service.js';
import { DataFolderSnapshotFiles } from './stores/snapshots/snapshot-file-store.js';
import { TarSnapshotArchives } from './stores/snapshots/tar-archives.js';
import { createDecoderPools, type DecoderPools } from './services/decoder-pools.js';
import { wireDomainServices, type ClosableRunner } from './services/domain-services.js';
import { openObjectStore } from './services/open-object-store.js';
import { openState } from './services/open-state.js';
import { NO_SWEEP, resumeKeptFolder, type BackgroundSweep } from './services/resume-kept-folder.js';
import { seededKeys } from './services/seeded-keys.js';
import { snapshotFile } from './services/snapshot-file.js';
import { InstanceMetrics } from './runtime/metrics/instance-metrics.js';

/** Everything the HTTP layer and the control plane work with, wired once (the composition root). */
export interface Services {
  config: MockConfig;
  paths: DataLayout;
  clock: MockClock;
  state: StateStore;
  store: ObjectStore;
  images: ImageService;
  predictions: PredictionService;
  exports: ExportService;
  progress: ProgressControls;
  shares: ShareService;
  admin: OrganizationAdmin;
  journal: RequestJournal;
  /** Requests per API key per second (off unless --rate-limit-per-second is set). */
  rateLimit: RequestRateLimit;
  /** Takes and loads snapshots of the whole state (domain/snapshots/). */
  snapshots: SnapshotService;
  /** This instance's metrics, served at /metrics. */
  metrics: InstanceMetrics;
  /** Reloads the seed into an empty state. */
  reseed(): Promise<void>;
  /**
   * The seed's well-known keys in clear, by organization id, for the banner and startMock: the state
   * keeps only their hashes. Only keys still valid are listed.
   */
  seededKeys(): Promise<Map<string, string[]>>;
  /** Waits for the start-up sweep, and for conversions and predictions in flight. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

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
const JOB_SETTINGS = { leaseMs: 15_000, concurrency: 256, pollMs: 250 };
/** Longer than any request or job takes to write a file and commit the row that refers to it. */
const SHARED_SWEEP_GRACE_MS = 60 * 60 * 1000;

export async function createServices(
  config: MockConfig,
  overrides: ServiceOverrides = {},
): Promise<Services> {
  const paths = dataLayout(config.dataDir);
  await makeDataFolders(config.dataDir, paths.folders);
  const state = await openState(config, overrides.onDatabaseWait);
  // With its own SQLite file the mock owns its data folder alone; on a shared PostgreSQL, other
  // instances may be running: what one-owner start-up steps would clear may be theirs.
  const soleOwner = config.databaseUrl === undefined;
  // A data folder is seeded once, then kept.
  const fresh = (await state.seed.seededAt()) === undefined;
  // The mock's own offset is kept under the empty organization id.
  const clock = new MockClock({
    load: (orgId) => state.clockOffsets.get(orgId ?? ''),
    save: (offset, orgId) => state.clockOffsets.set(orgId ?? '', offset),
  });
  await clock.refresh();
  const made = await openObjectStore(config, paths, overrides.persistent ?? false, () => clock.now());
  const store = overrides.wrapStore?.(made) ?? made;
  const borrowed = overrides.decoderPools;
  const pools = borrowed ?? createDecoderPools(config);
  const { worker, images, runner, progress, predictions, segmentations, shares, admin, exports } =
    wireDomainServices({
      config,
      paths,
      state,
      store,
      clock,
      pools,
      jobs: JOB_SETTINGS,
      runner: overrides.runner,
    });
  let seedContent: Seed | undefined;
  let sweep: BackgroundSweep = NO_SWEEP;
  const seed = async () => {
    const parsed = parseSeed(await readFile(config.seedFile, 'utf8'), config.seedFile);
    // Off loopback the seed's published keys stay out unless asked for (exposure.ts).
    const content = seedKeysLoaded(config)
      ? parsed
      : { ...parsed, organizations: parsed.organizations.map((o) => ({ ...o, api_keys: [] })) };
    seedContent = content;
    await state.transaction(async () => {
      await applySeed(state, content);
      await state.seed.markSeeded(new Date().toISOString());
    });
  };
  /**
   * Instances starting at once on an empty shared database each find it unseeded: the first to
   * commit seeds it, and the others' seeding fails on what it already holds; they go on with it.
   */
  const seedOnce = async () => {
    try {
      await seed();
    } catch (error) {
      if ((await state.seed.seededAt()) === undefined) throw error;
    }
  };
  if (fresh) {
    await seedOnce();
  } else {
    // A kept data folder: its seed's keys, for the banner, when the seed file is still there.
    seedContent = await readFile(config.seedFile, 'utf8').then(
      (text) => parseSeed(text, config.seedFile),
      () => undefined,
    );
    sweep = await resumeKeptFolder({
      state,
      store,
      paths,
      clock,
      images,
      predictions,
      soleOwner,
      sharedGraceMs: SHARED_SWEEP_GRACE_MS,
      onSweepFailed: overrides.onSweepFailed,
    });
  }
  let working = false;
  const startWork = () => {
    if (config.role === 'api') return;
    worker.start();
    working = true;
  };
  const snapshots = new SnapshotService({
    state,
    archives: new TarSnapshotArchives(paths.snapshotStaging),
    files: new DataFolderSnapshotFiles(paths, store),
    limits: { maxBytes: config.snapshotMaxBytes, maxEntries: config.snapshotMaxEntries },
    async whileQuiet(swap) {
      // The sweep reads the state the swap replaces: it ends first.
      await sweep.settled;
      const wasWorking = working;
      await worker.stop();
      working = false;
      await images.idle();
      try {
        await swap();
      } finally {
        // What the services keep beside the state follows the state now in place.
        await clock.refresh();
        clock.forgetOrganizations();
        segmentations.forgetAll();
        if ((await state.seed.seededAt()) === undefined) await state.seed.markSeeded(clock.nowIso());
        if (soleOwner) await images.dropHeldMarks();
        await images.recoverConversions({ soleOwner });
        await predictions.recoverInFlight({ soleOwner });
        if (wasWorking) startWork();
      }
    },
  });
  /** Stops what this mock opened: its database, and the children it did not borrow. */
  const release = async () => {
    if (overrides.runner || !borrowed) await runner.close?.();
    if (!borrowed) await pools.convert.close();
    await state.close();
  };
  const pooled = state as StateStore & { poolUse?: () => { waiting: number; waits: number } };
  const metrics = new InstanceMetrics({
    jobsQueued: () => state.jobs.count(),
    jobsLeased: () => worker.leases.held,
    jobLeasesLost: () => worker.leases.lost,
    // Only the PostgreSQL store has a pool of connections to wait for.
    databasePool: pooled.poolUse && (() => pooled.poolUse!()),
    decoderPools: () => ({ convert: pools.convert.use, segment: pools.segment.use }),
  });
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
  startWork();

  return {
    config,
    paths,
    clock,
    state,
    store,
    metrics,
    images,
    predictions,
    exports,
    progress,
    shares,
    admin,
    journal: new RequestJournal(state.journal),
    rateLimit: new RequestRateLimit(state, config.rateLimitPerSecond, config.rateLimitInstances),
    snapshots,
    async reseed() {
      await sweep.settled;
      await worker.stop();
      for (const org of await state.organizations.all()) await admin.resetOrganization(org.id);
      await state.clear();
      await clock.refresh();
      clock.forgetOrganizations();
      // Fresh children: a reset hands back what their heaps and libvips grew to.
      await runner.recycle?.();
      await pools.convert.recycle();
      await seed();
      startWork();
    },
    seededKeys: () => seededKeys(state, seedContent),
    async idle() {
      await sweep.settled;
      await images.idle();
      await predictions.idle();
    },
    async close() {
      // Rows of work in flight stay as they are, so it resumes after a restart; so does the sweep.
      sweep.stop();
      await sweep.settled;
      images.stop();
      predictions.stop();
      await worker.stop();
      await images.idle();
      await release();
    },
  };
}
