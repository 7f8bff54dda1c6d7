/**
 * Two instances on one state and one shared folder: each has its own ImageService and
 * its own EmbeddedObjectStore, so nothing in one's memory tells the other that a complete is under
 * way. Two completes of one upload, one to each: one is accepted (202), the other answers as for a
 * completed upload (invalid_state, 422 like any complete of an image no longer uploading), and the
 * image is converted once.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { domainWorld, type DomainWorld, uploadedParts } from '../../../test-support/domain-world.js';
import { EmbeddedObjectStore } from '../../stores/object-store/embedded-store.js';
import { DerivedImageFileStore } from '../../stores/files/derived-image-files.js';
import { dataLayout } from '../../stores/data-layout.js';
import { MockClock } from '../../domain/clock.js';
import { JobWorker } from '../../domain/jobs/job-worker.js';
import { ImageService } from '../../domain/images/image-service.js';

let world: DomainWorld;
let elsewhere: ImageService;
let elsewhereWorker: JobWorker;

beforeEach(async () => {
  world = await domainWorld();
  const layout = dataLayout(world.root);
  // The other instance's own worker, on the same state: either may run the conversion job.
  elsewhereWorker = new JobWorker(world.state, {
    leaseMs: 60_000,
    concurrency: 8,
    pollMs: 50,
    transientRetryMs: 0,
  });
  elsewhere = new ImageService(
    world.state,
    new EmbeddedObjectStore({ dataDir: layout.store, storageUrl: 'http://127.0.0.1:2/storage' }),
    new MockClock(),
    {
      worker: elsewhereWorker,
      minPartSize: 5,
      presignExpirySeconds: 600,
      async convert(_tiff, files) {
        for (const file of [files.preview, files.thumbnail, files.plane]) await writeFile(file, 'x');
        return {
          shape: [4, 4],
          width: 4,
          height: 4,
          previewPath: files.preview,
          thumbnailPath: files.thumbnail,
        };
      },
      derivedFiles: new DerivedImageFileStore(layout),
    },
  );
  elsewhereWorker.start();
});

afterEach(async () => {
  await elsewhere.idle();
  elsewhere.stop();
  await elsewhereWorker.stop();
  await world.images.idle();
  await world.close();
});

it('two completes of one upload on two instances: one 202, the other as for a completed upload', async () => {
  for (let round = 0; round < 20; round++) {
    const id = await uploadedParts(world);
    const outcomes = await Promise.allSettled([
      world.images.complete(world.org, id),
      elsewhere.complete(world.org, id),
    ]);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(
      refused.map((o) => (o.reason as { kind?: string }).kind),
      `round ${round}`,
    ).toEqual(['invalid_state']);
    await world.images.idle();
    await elsewhere.idle();
    const image = (await world.state.images.get(id))!;
    expect(image.uploadStatus).toBe('ready');
    expect(image.conversionAttempts).toBe(1);
    expect(path.basename(image.derived!.previewPath)).toBe('preview.png');
    await world.images.delete(world.org, id);
  }
});
