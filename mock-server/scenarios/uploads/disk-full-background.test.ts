/**
 * Work that finishes in the background after a full disk refused its commit is not lost and does
 * not take the process down: a conversion or a prediction commits once there is space again, and a
 * complete whose parts were already assembled can be sent again. (The disk is made "full" by
 * failing the state's transactions, as SQLite does on SQLITE_FULL; the real disk is tested on a
 * tmpfs in stores/durability.test.ts.)
 */
import { afterEach, expect, it } from 'vitest';
import {
  domainWorld,
  MODEL_ID,
  uploadedParts,
  type DomainWorld,
} from '../../../test-support/domain-world.js';
import { DomainError } from '../../domain/errors.js';

let w: DomainWorld;
afterEach(() => w?.close());

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds, polling; bounded, not an assertion on time. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await wait(25);
}

it('a conversion whose commit meets a full disk commits once space is back', async () => {
  w = await domainWorld();
  const id = await uploadedParts(w);
  w.onWorkDone = () => (w.diskFull = true);
  await w.images.complete(w.org, id);
  await until(() => w.diskFull);
  await wait(50);
  expect((await w.state.images.get(id))!.uploadStatus).toBe('processing');
  w.onWorkDone = () => undefined;
  w.diskFull = false;
  await w.images.idle();
  expect((await w.state.images.get(id))!.uploadStatus).toBe('ready');
});

it('a prediction whose result meets a full disk completes once space is back', async () => {
  w = await domainWorld();
  const id = await uploadedParts(w);
  await w.images.complete(w.org, id);
  await w.images.idle();
  w.onWorkDone = () => (w.diskFull = true);
  const { prediction } = await w.predictions.submit(w.org, id, MODEL_ID);
  await until(() => w.diskFull);
  await wait(50);
  expect((await w.state.predictions.get(prediction.id))!.status).toBe('STARTED');
  w.onWorkDone = () => undefined;
  w.diskFull = false;
  await w.predictions.idle();
  expect((await w.state.predictions.get(prediction.id))!.status).toBe('COMPLETED');
});

it('a complete refused by a full disk after assembling its parts succeeds when sent again', async () => {
  w = await domainWorld();
  const id = await uploadedParts(w);
  // The disk fills up right after the parts are assembled, before the complete commits.
  const assemble = w.store.completeMultipartUpload.bind(w.store);
  w.store.completeMultipartUpload = async (...args) => {
    const assembled = await assemble(...args);
    w.diskFull = true;
    return assembled;
  };
  const first = await w.images.complete(w.org, id).catch((err: unknown) => err);
  expect(first).toBeInstanceOf(DomainError);
  expect((first as DomainError).kind).toBe('storage_full');
  w.diskFull = false;
  await w.images.complete(w.org, id);
  await w.images.idle();
  expect((await w.state.images.get(id))!.uploadStatus).toBe('ready');
});

/** Throws, the first `times` calls, a full disk as a write meets it (`code`) or as a child reports it (words alone). */
function diskFullFor(times: number, how: 'code' | 'words'): () => void {
  return () => {
    if (times-- <= 0) return;
    throw how === 'code'
      ? Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      : new Error('cannot decode: vips__write: write failed; system error: No space left on device');
  };
}

it.each(['code', 'words'] as const)(
  'a conversion whose own writes meet a full disk (told by its %s) is run again, not failed',
  async (how) => {
    w = await domainWorld();
    const id = await uploadedParts(w);
    w.onWorkDone = diskFullFor(1, how);
    await w.images.complete(w.org, id);
    await w.images.idle();
    expect(await w.state.images.get(id)).toMatchObject({ uploadStatus: 'ready', uploadError: null });
  },
);

it('a prediction whose segmentation meets a full disk is run again, not FAILED', async () => {
  w = await domainWorld();
  const id = await uploadedParts(w);
  await w.images.complete(w.org, id);
  await w.images.idle();
  w.onWorkDone = diskFullFor(1, 'code');
  const { prediction } = await w.predictions.submit(w.org, id, MODEL_ID);
  await w.predictions.idle();
  expect((await w.state.predictions.get(prediction.id))!.status).toBe('COMPLETED');
});
