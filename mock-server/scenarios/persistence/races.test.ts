/**
 * Concurrent requests end in a state some serial order of the same requests would give, and answer
 * only documented outcomes. The interleavings are chosen by fast-check's scheduler, not by sleeping:
 * every answer of the object store (and of the segmentation runner) is a scheduled task whose
 * order fast-check picks, so each run explores a different interleaving of the awaits inside the
 * use cases, reproducibly from its seed.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  domainWorld as world,
  immediate,
  MODEL_ID,
  uploadedParts,
  type DomainWorld as World,
} from '../../../test-support/domain-world.js';
import { DomainError } from '../../domain/errors.js';
import { dataLayout, storeLayout } from '../../stores/data-layout.js';

const RUNS = 25;
const SEED = 20261122;

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

function filesOf(w: World, imageId: string): string[] {
  // the folder holding one folder per image key (`objects/<uuid>/original.tif`)
  const objects = path.dirname(storeLayout(w.store.dataDir).objectFile('objects/any'));
  const derived = dataLayout(w.root).derivedFilesOf(imageId).folder;
  return [...(existsSync(objects) ? readdirSync(objects) : []), ...(existsSync(derived) ? [derived] : [])];
}

describe('races end in a serial order', () => {
  it('complete vs DELETE: the delete wins or follows; nothing of the image is left', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const w = await world((work, label) => s.schedule(work, label));
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
          expect(await w.state.images.get(id)).toBeUndefined();
          expect(filesOf(w, id)).toEqual([]);
        } finally {
          await w.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('two completes at once: exactly one is accepted, the image converts once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const w = await world((work, label) => s.schedule(work, label));
        try {
          const id = await uploadedWithoutSchedule(w, s);
          const answers = await s.waitFor(
            Promise.all([outcome(w.images.complete(w.org, id)), outcome(w.images.complete(w.org, id))]),
          );
          await s.waitFor(w.images.idle());
          expect(answers.sort()).toEqual(['invalid_state', 'ok']);
          const image = (await w.state.images.get(id))!;
          expect(image.uploadStatus).toBe('ready');
          expect(image.conversionAttempts).toBe(1);
        } finally {
          await w.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('predict vs image DELETE: either 404, or the prediction goes with the image; no segmentation survives', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.boolean(), async (s, predictFirst) => {
        const w = await world((work, label) => s.schedule(work, label));
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
          expect(await w.state.predictions.idsOfImage(id)).toEqual([]);
          expect(await w.state.segmentations.idsOfImage(id)).toEqual([]);
          const left = existsSync(dataLayout(w.root).segmentations)
            ? readdirSync(dataLayout(w.root).segmentations)
            : [];
          expect(left).toEqual([]);
        } finally {
          await w.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('share create vs revoke: at most one live share, and a revoked share stays revoked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const w = await world(immediate);
        try {
          const id = await uploadedParts(w);
          await w.images.complete(w.org, id);
          await w.images.idle();
          const { prediction } = await w.predictions.submit(w.org, id, MODEL_ID);
          await w.predictions.idle();
          const segmentation = { id: (await w.state.predictions.get(prediction.id))!.segmentationId! };
          const first = await w.shares.createOrGet(w.org, segmentation.id);
          const create = s.scheduleFunction(async () => w.shares.createOrGet(w.org, segmentation.id));
          const revoke = s.scheduleFunction(async () => w.shares.revoke(w.org, first.id));
          const [created] = await s.waitFor(Promise.all([create(), revoke(), create()]));
          const live = [];
          for (const shareId of await w.state.shares.idsOfSegmentation(segmentation.id)) {
            const share = (await w.state.shares.get(shareId))!;
            if (!share.revokedAt) live.push(share);
          }
          expect(live.length).toBeLessThanOrEqual(1);
          expect((await w.state.shares.get(first.id))!.revokedAt).not.toBeNull();
          if (created.id !== first.id) expect(live.map((share) => share.id)).toContain(created.id);
        } finally {
          await w.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('abort vs part PUT: the PUT is refused or its part is discarded; nothing of the upload is left', async () => {
    for (const bodyEndsFirst of [true, false]) {
      const w = await world(immediate);
      try {
        const { image, plan } = await w.images.openResumable(w.org, { name: 'r.tif', size: 8 });
        const body = new PassThrough();
        body.write(Buffer.from('1234'));
        const put = w.store.partReceiver.putPart(plan.uploadId, '1', body).then(
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
        expect((await w.state.images.get(image.id))!.uploadStatus).toBe('failed');
        expect(existsSync(storeLayout(w.store.dataDir).uploadFolder(plan.uploadId))).toBe(false);
      } finally {
        await w.close();
      }
    }
  });
});

/** Sets up an upload with its part while the scheduler releases the store's answers as they come. */
async function uploadedWithoutSchedule(w: World, s: fc.Scheduler): Promise<string> {
  return s.waitFor(uploadedParts(w));
}
