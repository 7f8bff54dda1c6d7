import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import type { MockConfig } from './config.js';
import { MockClock } from './domain/clock.js';
import { ImageService } from './domain/images/image-service.js';
import { PredictionService, type SegmentationRunner } from './domain/predictions/prediction-service.js';
import { ProgressControls } from './domain/predictions/progress-controls.js';
import { applySeed, readSeed } from './domain/seed.js';
import { OrganizationAdmin } from './domain/organization-admin.js';
import { FaultRegistry } from './control/fault-registry.js';
import { RequestJournal } from './control/request-journal.js';
import { ShareService } from './domain/shares/share-service.js';
import { MockState } from './domain/state.js';
import { createObjectStore } from './engines/object-store/create-object-store.js';
import { EmbeddedObjectStore } from './engines/object-store/embedded-store.js';
import type { ObjectStore } from './engines/object-store/object-store.js';
import { SnapshotFile } from './persistence/snapshot-file.js';
import { restoreSnapshot, takeSnapshot } from './persistence/state-snapshot.js';
import type { ConvertedImage } from './domain/images/image-service.js';
import type { ChildProcessPool } from './runtime/decoder-pool/child-process-pool.js';
import { createDecoderPool } from './runtime/decoder-pool/decoder-pools.js';
import type { ConvertJob } from './runtime/decoder-pool/decoder-tasks.js';
import { ChildProcessSegmentationRunner } from './runtime/decoder-pool/segmentation-runner.js';

export interface DataPaths {
  root: string;
  incoming: string;
  derived: string;
  segmentations: string;
  objects: string;
  /** Local copies of objects kept in a remote store, for decoding. */
  cache: string;
}

/** Everything the HTTP layer and the control plane work with, wired once (the composition root). */
export interface Services {
  config: MockConfig;
  paths: DataPaths;
  clock: MockClock;
  state: MockState;
  store: ObjectStore;
  images: ImageService;
  predictions: PredictionService;
  progress: ProgressControls;
  shares: ShareService;
  admin: OrganizationAdmin;
  faults: FaultRegistry;
  journal: RequestJournal;
  /** Every operationId of the document, for validating fault targets. */
  operationIds: Set<string>;
  /** Reloads the seed into an empty state. */
  reseed(): Promise<void>;
  /** Waits for conversions and predictions in flight. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  runner?: SegmentationRunner & { close?: () => Promise<void>; recycle?: () => Promise<void> };
  /** Keep state in the data folder across restarts (set when --data-dir is given). */
  persistent?: boolean;
}

const AUTOSAVE_INTERVAL_MS = 250;

export async function createServices(
  config: MockConfig,
  overrides: ServiceOverrides = {},
): Promise<Services> {
  const paths = dataPaths(config.dataDir);
  await Promise.all(Object.values(paths).map((p) => mkdir(p, { recursive: true })));
  const clock = new MockClock();
  const state = new MockState();
  const store = await createStore(config, paths, overrides.persistent ?? false);
  // Every parse of a client's pixels happens in child processes (runtime/decoder-pool).
  const rasterLimits = { maxPixels: config.maxImagePixels, maxDecodedBytes: config.maxDecodedBytes };
  const decoders = decoderPool(config, config.decoderProcesses, 0);
  const images = new ImageService(state, store, clock, {
    derivedDir: paths.derived,
    minPartSize: config.minPartSize,
    presignExpirySeconds: config.presignExpirySeconds,
    convert: (tiffPath, outDir) =>
      decoders.run<ConvertedImage>('convert', {
        tiffPath,
        outDir,
        limits: rasterLimits,
      } satisfies ConvertJob),
    localPathOf: (key) => localPathOf(store, key, paths.cache),
  });
  const runner =
    overrides.runner ??
    new ChildProcessSegmentationRunner(
      decoderPool(config, config.workerThreads, 1), // one warm: a child starts in about a second
      rasterLimits,
    );
  const progress = new ProgressControls({
    startDelayMs: config.predictionStartDelayMs,
    runDelayMs: config.predictionRunDelayMs,
  });
  const predictions = new PredictionService(state, images, runner, progress, clock, {
    segmentationsDir: paths.segmentations,
  });
  const shares = new ShareService(state, clock);
  const admin = new OrganizationAdmin(state, images, predictions, clock);
  const snapshots = overrides.persistent
    ? new SnapshotFile(path.join(config.dataDir, 'state.json'))
    : undefined;
  const saved = await snapshots?.load();
  if (saved) {
    await restoreSnapshot(state, clock, saved, (id) => predictions.loadResult(id));
    images.resumeConversions();
    predictions.resumeInFlight();
  } else {
    applySeed(state, await readSeed(config.seedFile));
  }
  const save = () => snapshots?.save(takeSnapshot(state, clock)) ?? Promise.resolve();
  const autosave = snapshots
    ? setInterval(() => void save().catch(() => undefined), AUTOSAVE_INTERVAL_MS).unref()
    : undefined;

  return {
    config,
    paths,
    clock,
    state,
    store,
    images,
    predictions,
    progress,
    shares,
    admin,
    faults: new FaultRegistry(),
    journal: new RequestJournal(),
    operationIds: new Set(),
    async reseed() {
      await predictions.cancelAll();
      await images.idle();
      for (const org of state.organizations.values()) await admin.resetOrganization(org.id);
      state.clear();
      await runner.recycle?.();
      progress.clear();
      applySeed(state, await readSeed(config.seedFile));
    },
    async idle() {
      await images.idle();
      await predictions.idle();
    },
    async close() {
      clearInterval(autosave);
      await save(); // before cancelling, so predictions in flight resume after a restart
      await predictions.cancelAll();
      await images.idle();
      await runner.close?.();
      await decoders.close();
    },
  };
}

function decoderPool(config: MockConfig, size: number, warm: number): ChildProcessPool {
  return createDecoderPool({
    size,
    warm,
    memoryCeilingBytes: config.decoderMemoryMb * 1024 ** 2,
    timeBudgetMs: config.decoderTimeBudgetMs,
  });
}

export function dataPaths(root: string): DataPaths {
  return {
    root,
    incoming: path.join(root, 'incoming'),
    derived: path.join(root, 'derived'),
    segmentations: path.join(root, 'segmentations'),
    objects: path.join(root, 'store'),
    cache: path.join(root, 'cache'),
  };
}

async function persistentSecret(file: string): Promise<Buffer> {
  try {
    return Buffer.from(await readFile(file, 'utf8'), 'hex');
  } catch {
    const secret = randomBytes(32);
    await writeFile(file, secret.toString('hex'), { mode: 0o600 });
    return secret;
  }
}

async function createStore(config: MockConfig, paths: DataPaths, persistent: boolean): Promise<ObjectStore> {
  if (config.objectStore === 's3') {
    if (!config.s3Bucket) throw new Error('--object-store s3 needs --s3-bucket (S3_BUCKET)');
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
  return createObjectStore({
    kind: 'embedded',
    dataDir: paths.objects,
    storageUrl: config.storageUrl,
    // A persistent mock keeps its signing key, so part URLs handed out yesterday still work today.
    signingSecret: persistent
      ? await persistentSecret(path.join(config.dataDir, 'signing-secret'))
      : undefined,
  });
}

/** The embedded store's own file, or a local copy of a remote object, made once. */
async function localPathOf(store: ObjectStore, key: string, cacheDir: string): Promise<string> {
  if (store instanceof EmbeddedObjectStore) return store.objectPath(key);
  const target = path.join(cacheDir, createHash('sha256').update(key).digest('hex'));
  try {
    await access(target);
    return target;
  } catch {
    const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    await pipeline(await store.readObject(key), createWriteStream(temporary));
    await rename(temporary, target);
    return target;
  }
}
