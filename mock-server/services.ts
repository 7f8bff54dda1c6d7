import { randomBytes } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access, readFile, writeFile } from 'node:fs/promises';
import type { MockConfig } from './config.js';
import { seedKeysLoaded } from './exposure.js';
import { MockClock } from './domain/clock.js';
import { ImageService } from './domain/images/image-service.js';
import { JobWorker } from './domain/jobs/job-worker.js';
import { PredictionService, type SegmentationRunner } from './domain/predictions/prediction-service.js';
import { ExportService } from './domain/exports/export-service.js';
import { ProgressControls } from './domain/predictions/progress-controls.js';
import { applySeed, parseSeed, type Seed } from './domain/seed.js';
import { OrganizationAdmin } from './domain/organization-admin.js';
import { OrganizationLimits, RequestRateLimit } from './domain/abuse-limits.js';
import { RequestJournal } from './control/request-journal.js';
import { ShareService } from './domain/shares/share-service.js';
import type { StateStore } from './domain/state.js';
import { EmbeddedObjectStore } from './stores/object-store/embedded-store.js';
import type { ObjectStore } from './domain/object-store.js';
import { openDatabase } from './stores/sqlite/database/open-database.js';
import { makeDataFolders } from './stores/files/make-data-folder.js';
import { sweepDataFolder } from './stores/files/startup-sweep.js';
import { fileSystemNow } from './stores/files/sweep-age.js';
import { DerivedImageFileStore } from './stores/files/derived-image-files.js';
import { KeptExportFileStore } from './stores/files/kept-export-store.js';
import { SegmentationFileStore } from './stores/files/segmentation-file-store.js';
import { SqliteStateStore } from './stores/sqlite/sqlite-state-store.js';
import { dataLayout, type DataLayout } from './stores/data-layout.js';
import { SegmentationReader } from './domain/segmentations/segmentation-reader.js';
import { SnapshotService } from './domain/snapshots/snapshot-service.js';
import { SnapshotRefused } from './domain/snapshots/snapshot-format.js';
import { DataFolderSnapshotFiles } from './stores/snapshots/snapshot-file-store.js';
import { TarSnapshotArchives } from './stores/snapshots/tar-archives.js';
import type { ChildProcessPool } from './runtime/decoder-pool/child-process-pool.js';
import { createDecoderPool } from './runtime/decoder-pool/decoder-pools.js';
import { convertInChild } from './runtime/decoder-pool/convert-in-child.js';
import { ChildProcessSegmentationRunner } from './runtime/decoder-pool/segmentation-runner.js';
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

/** The two pools of decoder children the services run on (runtime/decoder-pool/decoder-pools.ts). */
export interface DecoderPools {
  convert: ChildProcessPool;
  segment: ChildProcessPool;
}

export interface ServiceOverrides {
  runner?: SegmentationRunner & { close?: () => Promise<void>; recycle?: () => Promise<void> };
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

const CLOCK_OFFSET = 'clock_offset_ms';
/** How the jobs of predictions and conversions are claimed (domain/jobs/job-worker.ts). */
const JOB_SETTINGS = { leaseMs: 15_000, concurrency: 256, pollMs: 250 };
/** Longer than any request or job takes to write a file and commit the row that refers to it. */
const SHARED_SWEEP_GRACE_MS = 60 * 60 * 1000;
/** Set once the seed was loaded into this database: a data folder is seeded once, then kept. */
const SEEDED = 'seeded_at';

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
  const fresh = (await state.settings.get(SEEDED)) === undefined;
  const offsetKey = (orgId?: string) => (orgId === undefined ? CLOCK_OFFSET : `${CLOCK_OFFSET}:${orgId}`);
  const clock = new MockClock({
    load: async (orgId) => {
      const saved = await state.settings.get(offsetKey(orgId));
      return saved === undefined ? undefined : Number(saved);
    },
    save: (offset, orgId) => state.settings.set(offsetKey(orgId), String(offset)),
  });
  await clock.refresh();
  const made = await createStore(config, paths, overrides.persistent ?? false, () => clock.now());
  const store = overrides.wrapStore?.(made) ?? made;
  // Every parse of a client's pixels happens in child processes (runtime/decoder-pool).
  const rasterLimits = { maxPixels: config.maxImagePixels, maxDecodedBytes: config.maxDecodedBytes };
  const borrowed = overrides.decoderPools;
  const own = borrowed ? undefined : createDecoderPools(config);
  const decoders = borrowed?.convert ?? own!.convert;
  const worker = new JobWorker(state, { ...JOB_SETTINGS, leaseMs: config.jobLeaseMs });
  const limits = new OrganizationLimits(state, {
    storedBytes: config.maxStoredBytesPerOrganization,
    openUploads: config.maxOpenUploadsPerOrganization,
    concurrentPredictions: config.maxConcurrentPredictionsPerOrganization,
  });
  const images = new ImageService(state, store, clock, {
    worker,
    limits,
    minPartSize: config.minPartSize,
    presignExpirySeconds: config.presignExpirySeconds,
    convert: convertInChild(decoders, rasterLimits),
    derivedFiles: new DerivedImageFileStore(paths),
  });
  const runner =
    overrides.runner ??
    new ChildProcessSegmentationRunner(
      // No child waits warm from the start: an idle mock holds no process it has not needed yet,
      // and the first prediction pays the child's start (about a second) once.
      borrowed?.segment ?? own!.segment,
      rasterLimits,
    );
  const progress = new ProgressControls(state, {
    startDelayMs: config.predictionStartDelayMs,
    runDelayMs: config.predictionRunDelayMs,
  });
  const segmentationFiles = new SegmentationFileStore(paths);
  const predictions = new PredictionService(
    state,
    images,
    runner,
    progress,
    clock,
    segmentationFiles,
    worker,
    limits,
  );
  images.onDeleted = (derived) => predictions.forget(derived);
  const segmentations = new SegmentationReader(state, segmentationFiles);
  const shares = new ShareService(state, clock, (id) => segmentations.load(id));
  const admin = new OrganizationAdmin(state, images, predictions, clock);
  let seedContent: Seed | undefined;
  /** The start-up sweep of a kept data folder, running in the background (settles, never rejects). */
  let sweeping: Promise<void> = Promise.resolve();
  const stopSweep = new AbortController();
  const seed = async () => {
    const parsed = parseSeed(await readFile(config.seedFile, 'utf8'), config.seedFile);
    // Off loopback the seed's published keys stay out unless asked for (exposure.ts).
    const content = seedKeysLoaded(config)
      ? parsed
      : { ...parsed, organizations: parsed.organizations.map((o) => ({ ...o, api_keys: [] })) };
    seedContent = content;
    await state.transaction(async () => {
      await applySeed(state, content);
      await state.settings.set(SEEDED, new Date().toISOString());
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
      if ((await state.settings.get(SEEDED)) === undefined) throw error;
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
    if (soleOwner) await images.dropHeldMarks();
    // Read before any work of this process writes a file: what changes later is not the sweep's.
    const startedAt = await fileSystemNow(paths.incoming);
    // The recoveries touch only the work in flight (bounded by the organizations' limits), and
    // take back the leases of the process before this one's worker starts claiming.
    await images.recoverConversions({ soleOwner });
    await predictions.recoverInFlight({ soleOwner });
    // The sweep reads every row and checks every file: it runs while the mock answers (see
    // startup-sweep.ts for why answers stay right meanwhile). Another instance's files in progress
    // are young: on a shared folder only what nothing has touched for SHARED_SWEEP_GRACE_MS goes.
    sweeping = sweepDataFolder(state, store, paths, () => clock.nowIso(), {
      startedAt,
      graceMs: soleOwner ? 0 : SHARED_SWEEP_GRACE_MS,
      signal: stopSweep.signal,
    }).then(
      () => undefined,
      (error: unknown) => {
        if (!stopSweep.signal.aborted) overrides.onSweepFailed?.(error);
      },
    );
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
      await sweeping;
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
        if ((await state.settings.get(SEEDED)) === undefined)
          await state.settings.set(SEEDED, clock.nowIso());
        if (soleOwner) await images.dropHeldMarks();
        await images.recoverConversions({ soleOwner });
        await predictions.recoverInFlight({ soleOwner });
        if (wasWorking) startWork();
      }
    },
  });
  const segmentPool = borrowed?.segment ?? own!.segment;
  const pooled = state as StateStore & { poolUse?: () => { waiting: number; waits: number } };
  const metrics = new InstanceMetrics({
    jobsQueued: () => state.jobs.count(),
    jobsLeased: () => worker.leases.held,
    jobLeasesLost: () => worker.leases.lost,
    // Only the PostgreSQL store has a pool of connections to wait for.
    databasePool: pooled.poolUse && (() => pooled.poolUse!()),
    decoderPools: () => ({ convert: decoders.use, segment: segmentPool.use }),
  });
  // A snapshot named at start replaces whatever the data folder or the seed put in place.
  if (config.snapshot) {
    try {
      await snapshots.load(await snapshotFile(config.snapshot));
    } catch (error) {
      // Nothing of a mock that did not start may stay open (its database, its children).
      if (overrides.runner || !borrowed) await runner.close?.();
      if (!borrowed) await decoders.close();
      await state.close();
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
    exports: new ExportService(
      segmentations,
      new KeptExportFileStore(paths, config.exportsKeptPerSegmentation),
    ),
    progress,
    shares,
    admin,
    journal: new RequestJournal(state.journal),
    rateLimit: new RequestRateLimit(state, config.rateLimitPerSecond),
    snapshots,
    async reseed() {
      await sweeping;
      await worker.stop();
      for (const org of await state.organizations.all()) await admin.resetOrganization(org.id);
      await state.clear();
      await clock.refresh();
      clock.forgetOrganizations();
      // Fresh children: a reset hands back what their heaps and libvips grew to.
      await runner.recycle?.();
      await decoders.recycle();
      await seed();
      startWork();
    },
    async seededKeys() {
      const keys = new Map<string, string[]>();
      for (const o of seedContent?.organizations ?? []) {
        const valid = [];
        for (const key of o.api_keys) if ((await state.organizationForKey(key))?.id === o.id) valid.push(key);
        keys.set(o.id, valid);
      }
      return keys;
    },
    async idle() {
      await sweeping;
      await images.idle();
      await predictions.idle();
    },
    async close() {
      // Rows of work in flight stay as they are, so it resumes after a restart; so does the sweep.
      stopSweep.abort();
      await sweeping;
      images.stop();
      predictions.stop();
      await worker.stop();
      await images.idle();
      if (overrides.runner || !borrowed) await runner.close?.();
      if (!borrowed) await decoders.close();
      await state.close();
    },
  };
}

/** The snapshot named by --snapshot, opened; a file that cannot be read stops the start with one line. */
async function snapshotFile(file: string): Promise<AsyncIterable<Uint8Array>> {
  try {
    await access(file, constants.R_OK);
  } catch (error) {
    throw new SnapshotRefused(`--snapshot ${file} cannot be read (${(error as { code?: string }).code})`);
  }
  return createReadStream(file) as AsyncIterable<Buffer>;
}

/** The state store: a shared PostgreSQL when --database-url names one, else the data folder's own SQLite file. */
async function openState(config: MockConfig, onWaiting?: (line: string) => void): Promise<StateStore> {
  if (config.databaseUrl !== undefined) {
    // Loaded only when asked for: a laptop's mock never loads the PostgreSQL driver.
    const { openPostgresStateStore } = await import('./stores/postgres/index.js');
    return openPostgresStateStore({
      url: config.databaseUrl,
      keyCache: keyCacheLimits(config),
      poolSize: config.databasePoolSize,
      statementTimeoutMs: config.databaseTimeoutMs,
      waitMs: config.databaseWaitMs,
      onWaiting,
    });
  }
  // The same database code runs with and without --data-dir: without it, in the temporary folder.
  return new SqliteStateStore(openDatabase(config.dataDir), { keyCache: keyCacheLimits(config) });
}

const keyCacheLimits = (config: MockConfig) => ({
  maxEntries: config.keyCacheEntries,
  maxAgeMs: config.keyCacheMs,
});

/** The two pools a mock runs on, made with the config's decoder settings; none starts a child yet. */
export function createDecoderPools(config: MockConfig): DecoderPools {
  const pool = (size: number) =>
    createDecoderPool({
      size,
      warm: 0,
      memoryCeilingBytes: config.decoderMemoryMb * 1024 ** 2,
      timeBudgetMs: config.decoderTimeBudgetMs,
    });
  return { convert: pool(config.decoderProcesses), segment: pool(config.workerThreads) };
}

/**
 * The data folder's signing key, made by the first mock that needs it. Instances sharing the folder
 * may start at once: the key is created exclusively ('wx'), and one that lost the race reads the
 * winner's, so every instance verifies the part URLs any other signed.
 */
async function persistentSecret(file: string): Promise<Buffer> {
  const read = async () => {
    const hex = await readFile(file, 'utf8');
    if (hex.length !== 64) throw Object.assign(new Error('half-written key'), { code: 'EAGAIN' });
    return Buffer.from(hex, 'hex');
  };
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EAGAIN' && attempt < 50) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      if (code !== 'ENOENT') throw error;
    }
    const secret = randomBytes(32);
    try {
      await writeFile(file, secret.toString('hex'), { mode: 0o600, flag: 'wx' });
      return secret;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    }
  }
}

async function createStore(
  config: MockConfig,
  paths: DataLayout,
  persistent: boolean,
  now: () => Date,
): Promise<ObjectStore> {
  if (config.objectStore === 's3') {
    if (!config.s3Bucket) throw new Error('--object-store s3 needs --s3-bucket (S3_BUCKET)');
    // The AWS SDK loads only when an S3 store is asked for: it is most of a cold start's modules.
    const { createObjectStore } = await import('./stores/object-store/create-object-store.js');
    return createObjectStore({
      kind: 's3',
      bucket: config.s3Bucket,
      region: config.s3Region,
      endpoint: config.s3Endpoint || undefined,
      prefix: config.s3Prefix,
      forcePathStyle: config.s3ForcePathStyle === 'true',
      tmpDir: paths.cache,
    });
  }
  if (config.objectStore !== 'embedded')
    throw new Error(`--object-store must be 'embedded' or 's3', got '${config.objectStore}'`);
  return new EmbeddedObjectStore({
    dataDir: paths.store,
    storageUrl: config.storageUrl,
    // A persistent mock keeps its signing key, so part URLs handed out yesterday still work today.
    signingSecret: persistent ? await persistentSecret(paths.signingSecret) : undefined,
    // Part URLs expire by the mock's clock, so advancing it from the control plane expires them.
    clock: now,
  });
}
