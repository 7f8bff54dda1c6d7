/**
 * A background job that meets a store unavailable for a moment (S3 answering store_unavailable,
 * as s3-store.ts does when the service stalls or drops a connection, or the state database not
 * answering) is run again later, under its job's lease, and nothing is counted as an attempt of
 * the conversion or the run: two such failures in a row would otherwise read as a run cut short
 * twice. A store that stays unavailable past --job-transient-retry-ms fails the job, saying so.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { afterEach, expect, it } from 'vitest';
import {
  domainWorld,
  MODEL_ID,
  uploadedParts,
  type DomainWorld,
  type Schedule,
} from '../../../test-support/domain-world.js';
import { eventually } from '../../../test-support/launched-mock.js';
import { DomainError } from '../../domain/errors.js';
import { dataLayout } from '../../stores/data-layout.js';

let w: DomainWorld;
afterEach(() => w?.close());

/** Reads of a stored original fail as S3's do while `failures.left` lasts, one each. */
function flakyReads(failures: { left: number }): Schedule {
  return (work, label) => {
    if (label !== 'store.localFileOf' || failures.left <= 0) return work;
    failures.left--;
    return Promise.reject(
      new DomainError(
        'store_unavailable',
        'The object store is unavailable (HTTP 503); try again shortly.',
        1,
      ),
    );
  };
}

/** A ready image whose kept plane is gone, so a prediction's run reads the stored original. */
async function readyWithoutPlane(world: DomainWorld): Promise<string> {
  const id = await uploadedParts(world);
  await world.images.complete(world.org, id);
  await world.images.idle();
  await rm(dataLayout(world.root).derivedFilesOf(id).plane);
  return id;
}

it('a conversion whose original cannot be read for a moment is run again, and the image is ready', async () => {
  const failures = { left: 2 };
  w = await domainWorld(flakyReads(failures));
  const id = await uploadedParts(w);
  await w.images.complete(w.org, id);
  await w.images.idle();
  const image = (await w.state.images.get(id))!;
  expect([failures.left, image.uploadStatus, image.uploadError]).toEqual([0, 'ready', null]);
  expect(image.conversionAttempts).toBe(1);
}, 20_000);

it('a conversion whose store stays unavailable past the bound fails, saying so', async () => {
  w = await domainWorld(flakyReads({ left: Infinity }), { jobTransientRetryMs: 1000 });
  const id = await uploadedParts(w);
  await w.images.complete(w.org, id);
  await w.images.idle();
  const image = (await w.state.images.get(id))!;
  expect(image.uploadStatus).toBe('failed');
  expect(image.uploadError).toMatch(
    /^The object store stayed unavailable for \d+ s \(HTTP 503\)\. Upload the image again\.$/,
  );
}, 20_000);

it('a conversion whose commit meets the state database unavailable for a moment is run again', async () => {
  w = await domainWorld();
  const id = await uploadedParts(w);
  w.onWorkDone = () => ((w.unavailableTransactions = 1), (w.onWorkDone = () => undefined));
  await w.images.complete(w.org, id);
  await w.images.idle();
  const image = (await w.state.images.get(id))!;
  expect([w.unavailableTransactions, image.uploadStatus, image.conversionAttempts]).toEqual([0, 'ready', 1]);
}, 20_000);

it('a prediction whose image cannot be read for a moment is run again, and completes', async () => {
  const failures = { left: 0 };
  w = await domainWorld(flakyReads(failures));
  const id = await readyWithoutPlane(w);
  failures.left = 2;
  const { prediction } = await w.predictions.submit(w.org, id, MODEL_ID);
  await w.predictions.idle();
  const done = (await w.state.predictions.get(prediction.id))!;
  expect([failures.left, done.status, done.error, done.runAttempts]).toEqual([0, 'COMPLETED', null, 1]);
}, 20_000);

it('a prediction put off after it STARTED keeps reading STARTED, and its next run is the same attempt', async () => {
  const failures = { left: 0 };
  w = await domainWorld(flakyReads(failures));
  const id = await readyWithoutPlane(w);
  failures.left = 2;
  const written: string[] = [];
  const put = w.state.predictions.put.bind(w.state.predictions);
  w.state.predictions.put = (p) => (written.push(p.status), put(p));
  const { prediction } = await w.predictions.submit(w.org, id, MODEL_ID);
  await w.predictions.idle();
  expect(written.slice(written.indexOf('STARTED'))).not.toContain('SUBMITTED');
  const done = (await w.state.predictions.get(prediction.id))!;
  expect([failures.left, done.status, done.runAttempts]).toEqual([0, 'COMPLETED', 1]);
}, 20_000);

it('a prediction put off twice counts the time it was put off toward the bound, not the time its runs worked', async () => {
  const failures = { left: 0 };
  // Each run reads the original at once, and learns it failed after its least running time, 1 s.
  w = await domainWorld(flakyReads(failures), { jobTransientRetryMs: 1800, predictionRunDelayMs: 1000 });
  const id = await readyWithoutPlane(w);
  failures.left = 2;
  const { prediction } = await w.predictions.submit(w.org, id, MODEL_ID);
  await w.predictions.idle();
  const done = (await w.state.predictions.get(prediction.id))!;
  expect([failures.left, done.status, done.error]).toEqual([0, 'COMPLETED', null]);
}, 20_000);

it('a prediction whose store stays unavailable past the bound fails, saying so', async () => {
  const failures = { left: 0 };
  w = await domainWorld(flakyReads(failures), { jobTransientRetryMs: 0 });
  const id = await readyWithoutPlane(w);
  failures.left = Infinity;
  const { prediction } = await w.predictions.submit(w.org, id, MODEL_ID);
  await w.predictions.idle();
  const done = (await w.state.predictions.get(prediction.id))!;
  expect([done.status, done.error]).toEqual([
    'FAILED',
    'The object store stayed unavailable for 0 s (HTTP 503). Submit it again.',
  ]);
});

it('a prediction whose held outcome met the database unavailable as it was published is put back without it', async () => {
  w = await domainWorld();
  const id = await uploadedParts(w);
  await w.images.complete(w.org, id);
  await w.images.idle();
  const delays = { startDelayMs: 0, runDelayMs: 0, completeAfterPolls: 1 };
  await w.state.progressDelays.set('organization', w.org.id, delays);
  const { prediction } = await w.predictions.submit(w.org, id, MODEL_ID);
  expect(await eventually(() => w.predictions.isHeldForPolls(prediction.id), 10_000)).toBe(true);
  // The poll's publish and the run's both fail: the run removes what it wrote and puts the row back.
  w.unavailableTransactions = 2;
  await w.predictions.get(w.org, prediction.id);
  const putBack = async () => !(await w.predictions.isHeldForPolls(prediction.id));
  expect(await eventually(putBack, 10_000)).toBe(true);
  expect((await w.state.predictions.get(prediction.id))?.status).toBe('STARTED');
  // A poll while the job is put off publishes nothing held from the run that failed.
  await w.predictions.get(w.org, prediction.id);
  await w.predictions.idle();
  const done = (await w.state.predictions.get(prediction.id))!;
  expect(done.status).toBe('COMPLETED');
  expect(existsSync(dataLayout(w.root).segmentationOf(done.segmentationId!).result)).toBe(true);
}, 20_000);
