/**
 * The domain's services on a fresh folder, wired by the wiring services.ts uses
 * (services/domain-services.ts), with hooks for tests: every answer of the object store and of the segmentation runner passes through
 * `schedule` (fast-check's scheduler picks their order), and the state's transactions can be made
 * to fail as on a full disk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { loadConfig, type MockConfig } from '../mock-server/config.js';
import { MockClock } from '../mock-server/domain/clock.js';
import { DomainError, storageFull } from '../mock-server/domain/errors.js';
import type { Organization } from '../mock-server/domain/organizations.js';
import type { ImageService } from '../mock-server/domain/images/image-service.js';
import type { PredictionService } from '../mock-server/domain/predictions/prediction-service.js';
import { applySeed, seedRows, toModel } from '../mock-server/domain/seed.js';
import type { ShareService } from '../mock-server/domain/shares/share-service.js';
import { EmbeddedObjectStore } from '../mock-server/stores/object-store/embedded-store.js';
import type { ObjectStore } from '../mock-server/domain/object-store.js';
import type { SegmentationResult } from '../mock-server/engines/segmentation/types.js';
import { openDatabase } from '../mock-server/stores/sqlite/database/open-database.js';
import { dataLayout } from '../mock-server/stores/data-layout.js';
import { SqliteStateStore } from '../mock-server/stores/sqlite/sqlite-state-store.js';
import { createDecoderPools } from '../mock-server/services/decoder-pools.js';
import { wireDomainServices } from '../mock-server/services/domain-services.js';

export const ORG_ID = '0e0b7f38-0000-4000-8000-000000000001';
export const MODEL_ID = '0e0b7f38-0000-4000-8000-0000000000aa';
const RESULT = { width: 4, height: 4, objects: [] } as unknown as SegmentationResult;

/** The settings services.ts takes from the config, as these tests want them: small parts, no delays. */
const WORLD_SETTINGS = {
  minPartSize: 5,
  presignExpirySeconds: 600,
  jobLeaseMs: 60_000,
  predictionStartDelayMs: 0,
  predictionRunDelayMs: 0,
} satisfies Partial<MockConfig>;

export type Schedule = <T>(work: Promise<T>, label: string) => Promise<T>;
export const immediate: Schedule = (work) => work;

export interface DomainWorld {
  root: string;
  state: SqliteStateStore;
  store: EmbeddedObjectStore;
  images: ImageService;
  predictions: PredictionService;
  shares: ShareService;
  org: Organization;
  /** While true, every transaction fails as on a full disk (storage_full), changing nothing. */
  diskFull: boolean;
  /** Transactions still to fail as on a state database that does not answer (store_unavailable), one each. */
  unavailableTransactions: number;
  /** Called inside the fake conversion and the fake runner, after their work and before their commit. */
  onWorkDone: () => void;
  close(): Promise<void>;
}

export async function domainWorld(
  schedule: Schedule = immediate,
  settings: Partial<MockConfig> = {},
): Promise<DomainWorld> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'domain-world-'));
  const layout = dataLayout(root);
  const real = new SqliteStateStore(openDatabase(root));
  await applySeed(
    real,
    seedRows({
      base_models: [],
      organizations: [
        {
          id: ORG_ID,
          name: 'World',
          plan: { name: 'big', storage_cap_images: 100, monthly_analysis_cap: 100 },
          api_keys: ['sk_test_world'],
        },
      ],
    }),
  );
  await real.transaction(() =>
    real.models.add(
      toModel(
        {
          id: MODEL_ID,
          name: 'm',
          version: '1',
          description: '',
          engine: 'threshold',
          params: { sigma: 1, polarity: 'bright', minAreaPx: 20, splitTouching: false },
        },
        'base',
      ),
    ),
  );
  const world = { diskFull: false, unavailableTransactions: 0, onWorkDone: () => undefined } as DomainWorld;
  const state = failingWhileDiskFull(real, world);
  const store = new EmbeddedObjectStore({
    dataDir: layout.store,
    storageUrl: 'http://127.0.0.1:1/storage',
  });
  const scheduled = scheduledStore(store, schedule);
  const clock = new MockClock();
  const config = loadConfig([], {}, { ...WORLD_SETTINGS, ...settings, dataDir: root });
  const pools = createDecoderPools(config);
  const { worker, images, predictions, shares } = wireDomainServices({
    config,
    paths: layout,
    state,
    store: scheduled,
    clock,
    // Neither pool starts a child: conversion and segmentation are replaced below.
    pools,
    jobs: { concurrency: 64, pollMs: 50 },
    // Conversion is not what these tests are about: the derived files are three small files.
    async convert(_tiff, files) {
      await writeFile(files.preview, 'p');
      await writeFile(files.thumbnail, 't');
      await writeFile(files.plane, 'plane');
      world.onWorkDone();
      return {
        shape: [4, 4],
        width: 4,
        height: 4,
        previewPath: files.preview,
        thumbnailPath: files.thumbnail,
      };
    },
    runner: {
      run: () =>
        schedule(
          Promise.resolve().then(() => {
            world.onWorkDone();
            return RESULT;
          }),
          'runner.run',
        ),
    },
  });
  worker.start();
  return Object.assign(world, {
    root,
    state: real,
    store,
    images,
    predictions,
    shares,
    org: (await real.organizations.get(ORG_ID))!,
    async close() {
      images.stop();
      predictions.stop();
      await worker.stop();
      await Promise.all([pools.convert.close(), pools.segment.close()]);
      await real.close();
      rmSync(root, { recursive: true, force: true });
    },
  });
}

/**
 * The state whose transactions fail as on a full disk (storage_full) while `world.diskFull` holds,
 * and as on a database that does not answer while `world.unavailableTransactions` lasts.
 */
function failingWhileDiskFull(real: SqliteStateStore, world: DomainWorld): SqliteStateStore {
  return new Proxy(real, {
    get(target, name, receiver) {
      if (name === 'transaction')
        return async <T>(work: () => Promise<T>): Promise<T> => {
          if (world.diskFull) throw storageFull();
          if (world.unavailableTransactions > 0 && world.unavailableTransactions--)
            throw new DomainError(
              'store_unavailable',
              'The state database is unavailable (test); try again shortly.',
              1,
            );
          return target.transaction(work);
        };
      return Reflect.get(target, name, receiver) as unknown;
    },
  });
}

/** The object store whose every answer passes through `schedule`. */
function scheduledStore(store: EmbeddedObjectStore, schedule: Schedule): ObjectStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const answer = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(answer instanceof Promise)) return answer;
        answer.catch(() => undefined); // its failure reaches the caller when the scheduler releases it
        return schedule(answer, `store.${String(name)}`);
      };
    },
  }) as ObjectStore;
}

/** A resumable upload with its one part arrived, ready to complete. */
export async function uploadedParts(w: DomainWorld): Promise<string> {
  const { image, plan } = await w.images.openResumable(w.org, { name: 'r.tif', size: 8 });
  const body = new PassThrough();
  body.end(Buffer.from('12345678'));
  await w.store.partReceiver.putPart(plan.uploadId, '1', body);
  return image.id;
}
