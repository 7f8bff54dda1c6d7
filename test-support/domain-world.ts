/**
 * The domain's services on a fresh folder, wired as services.ts wires them but with hooks for
 * tests: every answer of the object store and of the segmentation runner passes through
 * `schedule` (fast-check's scheduler picks their order), and the state's transactions can be made
 * to fail as on a full disk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { MockClock } from '../mock-server/domain/clock.js';
import { storageFull } from '../mock-server/domain/errors.js';
import { ImageService } from '../mock-server/domain/images/image-service.js';
import type { Organization } from '../mock-server/domain/organizations.js';
import { PredictionService } from '../mock-server/domain/predictions/prediction-service.js';
import { ProgressControls } from '../mock-server/domain/predictions/progress-controls.js';
import { addOrganization, toModel } from '../mock-server/domain/seed.js';
import { ShareService } from '../mock-server/domain/shares/share-service.js';
import { EmbeddedObjectStore } from '../mock-server/stores/object-store/embedded-store.js';
import type { ObjectStore } from '../mock-server/domain/object-store.js';
import type { SegmentationResult } from '../mock-server/engines/segmentation/types.js';
import { openDatabase } from '../mock-server/stores/sqlite/database/open-database.js';
import { dataLayout } from '../mock-server/stores/data-layout.js';
import { DerivedImageFileStore } from '../mock-server/stores/files/derived-image-files.js';
import { SegmentationFileStore } from '../mock-server/stores/files/segmentation-file-store.js';
import { SegmentationReader } from '../mock-server/domain/segmentations/segmentation-reader.js';
import { SqliteStateStore } from '../mock-server/stores/sqlite/sqlite-state-store.js';

export const ORG_ID = '0e0b7f38-0000-4000-8000-000000000001';
export const MODEL_ID = '0e0b7f38-0000-4000-8000-0000000000aa';
const RESULT = { width: 4, height: 4, objects: [] } as unknown as SegmentationResult;

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
  /** Called inside the fake conversion and the fake runner, after their work and before their commit. */
  onWorkDone: () => void;
  close(): Promise<void>;
}

export async function domainWorld(schedule: Schedule = immediate): Promise<DomainWorld> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'domain-world-'));
  const layout = dataLayout(root);
  const real = new SqliteStateStore(openDatabase(root));
  await addOrganization(real, {
    id: ORG_ID,
    name: 'World',
    plan: { name: 'big', storage_cap_images: 100, monthly_analysis_cap: 100 },
    api_keys: ['sk_test_world'],
  });
  await real.transaction(() =>
    real.models.add(
      toModel(
        { id: MODEL_ID, name: 'm', version: '1', description: '', engine: 'threshold', params: {} },
        'base',
      ),
    ),
  );
  const world = { diskFull: false, onWorkDone: () => undefined } as DomainWorld;
  const state = new Proxy(real, {
    get(target, name, receiver) {
      if (name === 'transaction')
        return async <T>(work: () => Promise<T>): Promise<T> => {
          if (world.diskFull) throw storageFull();
          return target.transaction(work);
        };
      return Reflect.get(target, name, receiver) as unknown;
    },
  });
  const store = new EmbeddedObjectStore({
    dataDir: layout.store,
    storageUrl: 'http://127.0.0.1:1/storage',
  });
  const scheduled = new Proxy(store, {
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
  const clock = new MockClock();
  const images = new ImageService(state, scheduled, clock, {
    minPartSize: 5,
    presignExpirySeconds: 600,
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
    derivedFiles: new DerivedImageFileStore(layout),
  });
  const runner = {
    run: () =>
      schedule(
        Promise.resolve().then(() => {
          world.onWorkDone();
          return RESULT;
        }),
        'runner.run',
      ),
  };
  const segmentationFiles = new SegmentationFileStore(layout);
  const predictions = new PredictionService(
    state,
    images,
    runner,
    new ProgressControls(state, { startDelayMs: 0, runDelayMs: 0 }),
    clock,
    segmentationFiles,
  );
  images.onDeleted = (derived) => predictions.forget(derived);
  const segmentations = new SegmentationReader(state, segmentationFiles);
  const shares = new ShareService(state, clock, (id) => segmentations.load(id));
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
      await real.close();
      rmSync(root, { recursive: true, force: true });
    },
  });
}

/** A resumable upload with its one part arrived, ready to complete. */
export async function uploadedParts(w: DomainWorld): Promise<string> {
  const { image, plan } = await w.images.openResumable(w.org, { name: 'r.tif', size: 8 });
  const body = new PassThrough();
  body.end(Buffer.from('12345678'));
  await w.store.partReceiver.putPart(plan.uploadId, '1', body);
  return image.id;
}
