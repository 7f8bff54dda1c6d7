/**
 * A resumable upload on S3 opened through one instance and completed through another:
 * each instance has its own S3ObjectStore, on one bucket that answers no ListParts and no
 * ListMultipartUploads (as `s3rver` and `fauxqs` do not). The second instance completes from the
 * image row (key, plan) and the parts the client listed, so neither is needed.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { domainWorld, type DomainWorld } from '../../../test-support/domain-world.js';
import { DerivedImageFileStore } from '../../stores/files/derived-image-files.js';
import { dataLayout } from '../../stores/data-layout.js';
import { S3ObjectStore } from '../../stores/object-store/s3-store.js';
import { MockClock } from '../../domain/clock.js';
import { JobWorker } from '../../domain/jobs/job-worker.js';
import { ImageService } from '../../domain/images/image-service.js';

const MIB = 1024 * 1024;

/** The fields of the commands this bucket answers (each command has its own). */
interface BucketInput {
  Key: string;
  UploadId: string;
  Prefix: string;
  MultipartUpload: { Parts: Array<{ PartNumber: number; ETag: string }> };
  Delete: { Objects: Array<{ Key: string }> };
}

/** One bucket: open uploads with the parts clients PUT to them, and whole objects. */
class FakeBucket {
  readonly uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  readonly objects = new Map<string, Buffer>();
  readonly etags = new Map<string, string>();
  readonly sent: string[] = [];
  /** Set: the next complete assembles the object, then answers as the SDK's retry of a lost answer does. */
  loseCompleteAnswer = false;
  private made = 0;

  /** A client's PUT to a presigned part URL: S3 answers the part's MD5 as its ETag. */
  putPart(uploadId: string, partNumber: number, bytes: Buffer): string {
    this.uploads.get(uploadId)!.parts.set(partNumber, bytes);
    return `"${createHash('md5').update(bytes).digest('hex')}"`;
  }

  send = async (command: object): Promise<unknown> => {
    const input = (command as { input: BucketInput }).input;
    this.sent.push(command.constructor.name);
    if (command instanceof CreateMultipartUploadCommand) {
      const uploadId = `up-${++this.made}`;
      this.uploads.set(uploadId, { key: input.Key, parts: new Map() });
      return { UploadId: uploadId };
    }
    if (command instanceof CompleteMultipartUploadCommand) {
      const upload = this.uploads.get(input.UploadId);
      if (!upload) throw failure('NoSuchUpload', 404);
      const chosen = input.MultipartUpload.Parts.map(({ PartNumber, ETag }) => {
        const bytes = upload.parts.get(PartNumber);
        const etag = bytes && `"${createHash('md5').update(bytes).digest('hex')}"`;
        if (etag !== ETag) throw failure('InvalidPart', 400);
        return bytes!;
      });
      this.uploads.delete(input.UploadId);
      this.objects.set(upload.key, Buffer.concat(chosen));
      // S3's ETag of an assembled object: the MD5 of its parts' MD5s, and their count.
      const md5s = chosen.map((bytes) => createHash('md5').update(bytes).digest());
      const etag = `"${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${chosen.length}"`;
      this.etags.set(upload.key, etag);
      if (this.loseCompleteAnswer) throw failure('NoSuchUpload', 404);
      return { ETag: etag };
    }
    if (command instanceof AbortMultipartUploadCommand) return (this.uploads.delete(input.UploadId), {});
    if (command instanceof HeadObjectCommand) {
      const object = this.objects.get(input.Key);
      if (!object) throw failure('NotFound', 404);
      return { ContentLength: object.length, ETag: this.etags.get(input.Key) };
    }
    if (command instanceof GetObjectCommand) {
      const object = this.objects.get(input.Key);
      if (!object) throw failure('NoSuchKey', 404);
      return { Body: Readable.from([object]) };
    }
    if (command instanceof ListObjectsV2Command) {
      return {
        Contents: [...this.objects.keys()].filter((k) => k.startsWith(input.Prefix)).map((Key) => ({ Key })),
      };
    }
    if (command instanceof DeleteObjectsCommand) {
      for (const { Key } of input.Delete.Objects) this.objects.delete(Key);
      return {};
    }
    throw new Error(`this bucket does not answer ${command.constructor.name}`);
  };
}

function failure(name: string, status: number): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: 'client',
    $metadata: { httpStatusCode: status },
    message: name,
  });
}

let world: DomainWorld;
let bucket: FakeBucket;
const instances: Array<{ images: ImageService; worker: JobWorker }> = [];

function instance(): ImageService {
  const worker = new JobWorker(world.state, {
    leaseMs: 60_000,
    concurrency: 8,
    pollMs: 50,
    transientRetryMs: 0,
  });
  const store = new S3ObjectStore(
    {
      region: 'us-east-1',
      bucket: 'cells',
      prefix: 'sandbox',
      tmpDir: os.tmpdir(),
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    },
    { send: bucket.send },
  );
  const images = new ImageService(world.state, store, new MockClock(), {
    worker,
    minPartSize: 5 * MIB,
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
    derivedFiles: new DerivedImageFileStore(dataLayout(world.root)),
  });
  worker.start();
  instances.push({ images, worker });
  return images;
}

beforeEach(async () => {
  world = await domainWorld();
  bucket = new FakeBucket();
});

afterEach(async () => {
  for (const { images, worker } of instances.splice(0)) {
    await images.idle();
    images.stop();
    await worker.stop();
  }
  await world.images.idle();
  await world.close();
});

it('completes on another instance from the row and the listed parts: no ListParts, nothing in memory', async () => {
  const [opener, completer] = [instance(), instance()];
  const size = 6 * MIB; // two parts: 5 MiB and 1 MiB
  const { image, plan } = await opener.openResumable(world.org, { name: 'big.tif', size });
  expect(plan.urls.map((u) => new URL(u.url).searchParams.get('X-Amz-SignedHeaders'))).toEqual([
    'content-length;host',
    'content-length;host',
  ]);
  const etags = [Buffer.alloc(5 * MIB, 1), Buffer.alloc(MIB, 2)].map((bytes, i) =>
    bucket.putPart(plan.uploadId, i + 1, bytes),
  );
  // A list that leaves a part out is refused before anything is assembled: the plan sizes it short.
  await expect(
    completer.complete(world.org, image.id, [{ part_number: 1, etag: etags[0] }]),
  ).rejects.toMatchObject({ kind: 'invalid_input', message: expect.stringMatching(/^Size mismatch/) });
  expect(bucket.uploads.has(plan.uploadId)).toBe(true);

  await completer.complete(
    world.org,
    image.id,
    etags.map((etag, i) => ({ part_number: i + 1, etag })),
  );
  await completer.idle();
  await opener.idle();
  expect((await world.state.images.get(image.id))?.uploadStatus).toBe('ready');
  expect(bucket.objects.get(`sandbox/${image.storageKey}`)?.length).toBe(size);
  expect(bucket.sent).not.toContain('ListPartsCommand');
  expect(bucket.sent).not.toContain('ListMultipartUploadsCommand');
});

it('completes an upload whose complete the service did, though its answer was lost and the retry found the upload gone', async () => {
  const images = instance();
  const { image, plan } = await images.openResumable(world.org, { name: 'lost.tif', size: 6 * MIB });
  const etags = [Buffer.alloc(5 * MIB, 1), Buffer.alloc(MIB, 2)].map((bytes, i) =>
    bucket.putPart(plan.uploadId, i + 1, bytes),
  );
  bucket.loseCompleteAnswer = true;
  await images.complete(
    world.org,
    image.id,
    etags.map((etag, i) => ({ part_number: i + 1, etag })),
  );
  await images.idle();
  expect((await world.state.images.get(image.id))?.uploadStatus).toBe('ready');
});

it('aborts on another instance from the row alone', async () => {
  const [opener, aborter] = [instance(), instance()];
  const { image, plan } = await opener.openResumable(world.org, { name: 'gone.tif', size: 100 });
  await aborter.abort(world.org, image.id);
  expect(bucket.uploads.has(plan.uploadId)).toBe(false);
  expect(bucket.sent).not.toContain('ListMultipartUploadsCommand');
});
