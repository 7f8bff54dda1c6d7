/**
 * Concurrent requests end in a state some serial order of the same requests would give, and answer
 * only documented outcomes. The interleavings are chosen by fast-check's scheduler, not by sleeping:
 * every answer of the object store (and of the segmentation runner) is a scheduled task whose
 * order fast-check picks, so each run explores a different interleaving of the awaits inside the
 * use cases, reproducibly from its seed.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EmbeddedObjectStore } from '../engines/object-store/embedded-store.js';
import type { ObjectStore } from '../engines/object-store/object-store.js';
import type { SegmentationResult } from '../engines/segmentation/types.js';
import { openDatabase } from '../stores/database/open-database.js';
import { flushFiles } from '../stores/files/flush-files.js';
import { SqliteStateStore } from '../stores/sqlite-state-store.js';
import { MockClock } from './clock.js';
import { DomainError } from './errors.js';
import { ImageService } from './images/image-service.js';
import type { Organization } from './organizations.js';
import { PredictionService } from './predictions/prediction-service.js';
import { ProgressControls } from './predictions/progress-controls.js';
import { addOrganization, toModel } from './seed.js';
import { ShareService } from './shares/share-service.js';

const RUNS = 25;
const SEED = 20261122;
const ORG_ID = '0e0b7f38-0000-4000-8000-000000000001';
const MODEL_ID = '0e0b7f38-0000-4000-8000-0000000000aa';
const RESULT: SegmentationResult = { width: 4, height: 4, objects: [] } as unknown as SegmentationResult;

interface World {
  root: string;
  state: SqliteStateStore;
  store: EmbeddedObjectStore;
  images: ImageService;
  predictions: PredictionService;
  shares: ShareService;
  org: Organization;
  close(): void;
}

/** Services on a fresh folder; the object store's and the runner's answers go through `schedule`. */
function world(schedule: <T>(work: Promise<T>, label: string) => Promise<T>): World {
  const root = mkdtempSync(path.join(os.tmpdir(), 'races-'));
  const state = new SqliteStateStore(openDatabase(root));
  addOrganization(state, {
    id: ORG_ID,
    name: 'Races',
    plan: { name: 'big', storage_cap_images: 100, monthly_analysis_cap: 100 },
    api_keys: ['sk_test_races'],
  });
  state.transaction(() =>
    state.models.add(
      toModel(
        { id: MODEL_ID, name: 'm', version: '1', description: '', engine: 'threshold', params: {} },
        'base',
      ),
    ),
  );
  const store = new EmbeddedObjectStore({
    dataDir: path.join(root, 'store'),
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
  const derivedDir = path.join(root, 'derived');
  const images = new ImageService(state, scheduled, clock, {
    derivedDir,
    minPartSize: 5,
    presignExpirySeconds: 600,
    // Conversion is not what races here: previews are two small files.
    async convert(_tiff, outDir) {
      await mkdir(outDir, { recursive: true });
      const previewPath = path.join(outDir, 'preview.png');
      const thumbnailPath = path.join(outDir, 'thumbnail.png');
      await writeFile(previewPath, 'p');
      await writeFile(thumbnailPath, 't');
      return { shape: [4, 4], width: 4, height: 4, previewPath, thumbnailPath };
    },
    localPathOf: async (key) => store.objectPath(key),
    flushFiles,
  });
  const runner = { run: () => schedule(Promise.resolve(RESULT), 'runner.run') };
  const predictions = new PredictionService(
    state,
    images,
    runner,
    new ProgressControls({ startDelayMs: 0, runDelayMs: 0 }),
    clock,
    { segmentationsDir: path.join(root, 'segmentations'), flushFiles },
  );
  images.onDeleted = (derived) => predictions.forget(derived);
  const shares = new ShareService(state, clock, (id) => predictions.loadSegmentation(id));
  return {
    root,
    state,
    store,
    images,
    predictions,
    shares,
    org: state.organizations.get(ORG_ID)!,
    close() {
      state.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A resumable upload with its one part arrived, ready to complete (set up with real, unscheduled answers). */
async function uploadedParts(w: World): Promise<string> {
  const { image, plan } = await w.images.openResumable(w.org, { name: 'r.tif', size: 8 });
  const body = new PassThrough();
  body.end(Buffer.from('12345678'));
  await w.store.putPart(plan.uploadId, '1', body);
  return image.id;
}

/** What a request answered: ok, or the kind of the domain error (anything else fails the test). */
async function outcome(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return err.kind;
    throw err;
  }
}

const immediate = <T>(work: Promise<T>) => work;

function filesOf(w: World, imageId: string): string[] {
  const objects = path.join(w.store.dataDir, 'objects', 'objects');
  const derived = path.join(w.root, 'derived', imageId);
  return [...(existsSync(objects) ? readdirSync(objects) : []), ...(existsSync(derived) ? [derived] : [])];
}

describe('races end in a serial order', () => {
  it('complete vs DELETE: the delete wins or follows; nothing of the image is left', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const w = world((work, label) => s.schedule(work, label));
        try {
          const id = await uploadedWithoutSchedule(w, s);
          const answers = Promise.all([
            outcome(w.images.complete(w.org, id)),
            outcome(w.images.delete(w.org, id)),
          ]);
          const [completed, deleted] = await s.waitFor(answers);
          await s.waitFor(w.images.idle());
          expect(deleted).toBe('ok');
          expect(['ok', 'not_found', 'invalid_state']).toContain(completed);
          expect(w.state.images.get(id)).toBeUndefined();
          expect(filesOf(w, id)).toEqual([]);
        } finally {
          w.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('two completes at once: exactly one is accepted, the image converts once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const w = world((work, label) => s.schedule(work, label));
        try {
          const id = await uploadedWithoutSchedule(w, s);
          const answers = await s.waitFor(
            Promise.all([outcome(w.images.complete(w.org, id)), outcome(w.images.complete(w.org, id))]),
          );
          await s.waitFor(w.images.idle());
          expect(answers.sort()).toEqual(['invalid_state', 'ok']);
          const image = w.state.images.get(id)!;
          expect(image.uploadStatus).toBe('ready');
          expect(image.conversionAttempts).toBe(1);
        } finally {
          w.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('predict vs image DELETE: either 404, or the prediction goes with the image; no segmentation survives', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.boolean(), async (s, predictFirst) => {
        const w = world((work, label) => s.schedule(work, label));
        try {
          const id = await uploadedWithoutSchedule(w, s);
          await s.waitFor(w.images.complete(w.org, id).then(() => w.images.idle()));
          const predict = () => Promise.resolve().then(() => w.predictions.submit(w.org, id, MODEL_ID));
          const remove = () => w.images.delete(w.org, id);
          const calls = predictFirst
            ? [outcome(predict()), outcome(remove())]
            : [outcome(remove()), outcome(predict())];
          const [first, second] = await s.waitFor(Promise.all(calls));
          await s.waitFor(w.predictions.idle());
          const [predicted, deleted] = predictFirst ? [first, second] : [second, first];
          expect(deleted).toBe('ok');
          expect(['ok', 'not_found']).toContain(predicted);
          expect(w.state.predictions.idsOfImage(id)).toEqual([]);
          expect(w.state.segmentations.idsOfImage(id)).toEqual([]);
          const left = existsSync(path.join(w.root, 'segmentations'))
            ? readdirSync(path.join(w.root, 'segmentations'))
            : [];
          expect(left).toEqual([]);
        } finally {
          w.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('share create vs revoke: at most one live share, and a revoked share stays revoked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const w = world(immediate);
        try {
          const id = await uploadedParts(w);
          await w.images.complete(w.org, id);
          await w.images.idle();
          const { prediction } = w.predictions.submit(w.org, id, MODEL_ID);
          await w.predictions.idle();
          const segmentation = w.predictions.segmentation(
            w.org,
            w.state.predictions.get(prediction.id)!.segmentationId!,
          );
          const first = w.shares.createOrGet(w.org, segmentation);
          const create = s.scheduleFunction(async () => w.shares.createOrGet(w.org, segmentation));
          const revoke = s.scheduleFunction(async () => w.shares.revoke(w.org, first.id));
          const [created] = await s.waitFor(Promise.all([create(), revoke(), create()]));
          const live = w.state.shares
            .idsOfSegmentation(segmentation.id)
            .map((shareId) => w.state.shares.get(shareId)!)
            .filter((share) => !share.revokedAt);
          expect(live.length).toBeLessThanOrEqual(1);
          expect(w.state.shares.get(first.id)!.revokedAt).not.toBeNull();
          if (created.id !== first.id) expect(live.map((share) => share.id)).toContain(created.id);
        } finally {
          w.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('abort vs part PUT: the PUT is refused or its part is discarded; nothing of the upload is left', async () => {
    for (const bodyEndsFirst of [true, false]) {
      const w = world(immediate);
      try {
        const { image, plan } = await w.images.openResumable(w.org, { name: 'r.tif', size: 8 });
        const body = new PassThrough();
        body.write(Buffer.from('1234'));
        const put = w.store.putPart(plan.uploadId, '1', body).then(
          () => 'ok',
          (err: { code?: string }) => err.code,
        );
        if (bodyEndsFirst) {
          body.end(Buffer.from('5678'));
          await put;
        }
        await w.images.abort(w.org, image.id);
        body.end();
        expect(['ok', 'NoSuchUpload']).toContain(await put);
        await w.store.whenIdle();
        expect(w.state.images.get(image.id)!.uploadStatus).toBe('failed');
        expect(existsSync(path.join(w.store.dataDir, 'multipart', plan.uploadId))).toBe(false);
      } finally {
        w.close();
      }
    }
  });
});

/** Sets up an upload with its part while the scheduler releases the store's answers as they come. */
async function uploadedWithoutSchedule(w: World, s: fc.Scheduler): Promise<string> {
  return s.waitFor(uploadedParts(w));
}
