/**
 * The S3 adapter against a real S3: Ceph's RADOS Gateway, started for this file on a throwaway
 * single-node cluster (sandbox/throwaway-rgw.ts). Parts go to presigned URLs with fetch, as a
 * client's do; two adapters on one bucket act as two mock instances. Skipped, with the reason,
 * where Debian's Ceph packages are absent (.ci/run installs them).
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  rgwUnavailableReason,
  startThrowawayRgw,
  type ThrowawayRgw,
} from '../../../sandbox/throwaway-rgw.js';
import type { KnownUpload, MultipartPlan, PartSelection } from '../../domain/object-store.js';
import { S3ObjectStore } from './s3-store.js';

const PART = 16 * 1024;
const unavailable = rgwUnavailableReason();

let rgw: ThrowawayRgw;
let tmpDir: string;

beforeAll(async () => {
  if (unavailable) return;
  rgw = await startThrowawayRgw({ minPartSize: PART });
  tmpDir = await fsp.mkdtemp(path.join(os.tmpdir(), 's3-rgw-'));
}, 120_000);

afterAll(async () => {
  await rgw?.stop();
  if (tmpDir) await fsp.rm(tmpDir, { recursive: true, force: true });
});

/** An adapter on the throwaway bucket: each call is one mock instance's. */
function instance(prefix = 'tenant-a/'): S3ObjectStore {
  return new S3ObjectStore({
    endpoint: rgw.endpoint,
    region: rgw.region,
    bucket: rgw.bucket,
    prefix,
    forcePathStyle: true,
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
    tmpDir,
  });
}

function planOf(bytes: Buffer): MultipartPlan {
  return { totalSize: bytes.length, partSize: PART, partCount: Math.ceil(bytes.length / PART) };
}

/** Opens an upload on one instance and PUTs each chosen part to its presigned URL, as a client does. */
async function uploadParts(
  bytes: Buffer,
  numbers?: number[],
): Promise<{ uploadId: string; known: KnownUpload; parts: PartSelection[] }> {
  const known = { key: `images/${randomBytes(6).toString('hex')}/original.tif`, plan: planOf(bytes) };
  const { uploadId } = await instance().createMultipartUpload(known.key, known.plan);
  const parts: PartSelection[] = [];
  for (const partNumber of numbers ?? range(known.plan.partCount)) {
    const url = await instance().presignPart(uploadId, partNumber, 600, known);
    const body = bytes.subarray((partNumber - 1) * PART, partNumber * PART);
    const answer = await fetch(url, { method: 'PUT', body });
    expect(answer.status, await answer.text()).toBe(200);
    parts.push({ partNumber, etag: answer.headers.get('etag')! });
  }
  return { uploadId, known, parts };
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i + 1);
}

async function read(store: S3ObjectStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await store.readObject(key)) as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** S3's multipart ETag: the md5 of the parts' md5s, then the part count. */
function multipartEtag(bytes: Buffer, partSize: number): string {
  const digests = range(Math.ceil(bytes.length / partSize)).map((n) =>
    createHash('md5')
      .update(bytes.subarray((n - 1) * partSize, n * partSize))
      .digest(),
  );
  return `"${createHash('md5').update(Buffer.concat(digests)).digest('hex')}-${digests.length}"`;
}

describe.skipIf(unavailable)(
  `the S3 adapter on Ceph RGW${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    it('assembles a resumable upload sent to presigned part URLs, completed on another instance with its parts listed out of order', async () => {
      const bytes = randomBytes(3 * PART + 1000);
      const { uploadId, known, parts } = await uploadParts(bytes);
      const done = await instance().completeMultipartUpload(uploadId, [...parts].reverse(), known);
      // RGW's complete answers no ETag: the adapter reads the object's, which is S3's multipart one.
      expect(done).toEqual({ key: known.key, size: bytes.length, etag: multipartEtag(bytes, PART) });
      expect((await read(instance(), known.key)).equals(bytes)).toBe(true);
      expect(await instance().headObject(known.key)).toEqual({ size: bytes.length });
      // RGW answers a complete tried again (its first answer lost) with the object its parts made;
      // where a service answers NoSuchUpload instead, the adapter finds that object (s3-store.test.ts).
      expect(await instance().completeMultipartUpload(uploadId, parts, known)).toEqual(done);
      // The upload is gone: NoSuchUpload, as AWS says it (RGW says NoSuchKey).
      await expect(instance().listParts(uploadId, { known })).rejects.toMatchObject({ code: 'NoSuchUpload' });
    });

    it('completes without a list with every part that arrived (ListParts), on another instance', async () => {
      const bytes = randomBytes(2 * PART + 10);
      const { uploadId, known } = await uploadParts(bytes);
      expect((await instance().listParts(uploadId, { known })).map((p) => p.size)).toEqual([PART, PART, 10]);
      const done = await instance().completeMultipartUpload(uploadId, undefined, known);
      expect(done.size).toBe(bytes.length);
      expect((await read(instance(), known.key)).equals(bytes)).toBe(true);
    });

    it('refuses a PUT of another size than the part URL signs, and a complete naming a wrong ETag, leaving the upload usable', async () => {
      const bytes = randomBytes(2 * PART);
      const { uploadId, known, parts } = await uploadParts(bytes, [1]);
      const url = await instance().presignPart(uploadId, 2, 600, known);
      expect((await fetch(url, { method: 'PUT', body: bytes.subarray(0, 100) })).status).toBe(403);
      expect((await fetch(url, { method: 'PUT', body: bytes.subarray(PART) })).status).toBe(200);
      const wrong = await instance()
        .completeMultipartUpload(
          uploadId,
          [...parts, { partNumber: 2, etag: '"0123456789abcdef0123456789abcdef"' }],
          known,
        )
        .catch((error: unknown) => error);
      expect(wrong).toMatchObject({
        code: 'InvalidPart',
        partNumber: 2,
        message: expect.stringMatching(/ETag/),
      });
      expect((await instance().completeMultipartUpload(uploadId, undefined, known)).size).toBe(bytes.length);
    });

    it('takes listed ETags as the embedded store does: in upper case assembled, one XML cannot carry refused by its part', async () => {
      const bytes = randomBytes(2 * PART);
      const { uploadId, known, parts } = await uploadParts(bytes);
      // A control character would make S3's complete request malformed XML (RGW: MalformedXML).
      const unsendable = await instance()
        .completeMultipartUpload(uploadId, [parts[0], { ...parts[1], etag: `${parts[1].etag}\u0001` }], known)
        .catch((error: unknown) => error);
      expect(unsendable).toMatchObject({
        code: 'InvalidPart',
        partNumber: 2,
        message: expect.stringMatching(/^Part 2: ETag .* does not match the uploaded part's ETag/),
      });
      const upper = parts.map((part) => ({ ...part, etag: part.etag.toUpperCase() }));
      expect((await instance().completeMultipartUpload(uploadId, upper, known)).size).toBe(bytes.length);
      expect((await read(instance(), known.key)).equals(bytes)).toBe(true);
    });

    it("answers a complete listing a subset of the uploaded parts with InvalidPart naming RGW's limit, and the upload stays open", async () => {
      const bytes = randomBytes(3 * PART);
      const { uploadId, known, parts } = await uploadParts(bytes);
      const subset = await instance()
        .completeMultipartUpload(uploadId, parts.slice(0, 2), known)
        .catch((error: unknown) => error);
      expect(subset).toMatchObject({
        code: 'InvalidPart',
        partNumber: 3,
        message: expect.stringMatching(/assembles no subset.*part 3 was uploaded but not listed/),
      });
      expect(await instance().exists(known.key)).toBe(false);
      expect((await instance().completeMultipartUpload(uploadId, parts, known)).size).toBe(bytes.length);
    });

    it('aborts on another instance: the parts are gone and a part PUT or a second abort is NoSuchUpload', async () => {
      const bytes = randomBytes(2 * PART);
      const { uploadId, known } = await uploadParts(bytes, [1]);
      await instance().abortMultipartUpload(uploadId, known);
      await expect(instance().listParts(uploadId, { known })).rejects.toMatchObject({ code: 'NoSuchUpload' });
      await expect(instance().abortMultipartUpload(uploadId, known)).rejects.toMatchObject({
        code: 'NoSuchUpload',
        message: expect.stringMatching(/does not exist/),
      });
      const late = await fetch(await instance().presignPart(uploadId, 2, 600, known), {
        method: 'PUT',
        body: bytes.subarray(PART),
      });
      expect(late.status).toBe(404);
      await expect(instance().completeMultipartUpload(uploadId, undefined, known)).rejects.toMatchObject({
        code: 'NoSuchUpload',
      });
    });

    it('refuses parts below the minimum at complete (EntityTooSmall) with a message', async () => {
      // A plan of 100-byte parts: RGW takes each PUT, then refuses the upload at complete.
      const known = {
        key: `images/${randomBytes(6).toString('hex')}/original.tif`,
        plan: { totalSize: 200, partSize: 100, partCount: 2 },
      };
      const bytes = randomBytes(known.plan.totalSize);
      const { uploadId } = await instance().createMultipartUpload(known.key, known.plan);
      for (const n of [1, 2]) {
        const body = bytes.subarray((n - 1) * 100, n * 100);
        const answer = await fetch(await instance().presignPart(uploadId, n, 600, known), {
          method: 'PUT',
          body,
        });
        expect(answer.status).toBe(200);
      }
      expect((await instance().listParts(uploadId, { known })).map((p) => p.size)).toEqual([100, 100]);
      const small = await instance()
        .completeMultipartUpload(uploadId, undefined, known)
        .catch((error: unknown) => error);
      expect(small).toMatchObject({
        code: 'EntityTooSmall',
        message: expect.stringMatching(/\w/),
      });
      await instance().abortMultipartUpload(uploadId, known);
    });

    it('stores, reads, copies locally and deletes whole objects (the exports and previews)', async () => {
      const store = instance('tenant-b/');
      const csv = Buffer.from('roi,area\n1,42\n');
      expect(await store.putObject('segmentations/s1/measurements.csv', Readable.from([csv]))).toEqual({
        size: csv.length,
      });
      const file = path.join(tmpDir, 'overlay.png');
      await fsp.writeFile(file, randomBytes(5000));
      await store.putObject('segmentations/s1/overlay.png', file, { move: true });
      await expect(fsp.access(file)).rejects.toMatchObject({ code: 'ENOENT' });
      expect((await read(store, 'segmentations/s1/measurements.csv')).equals(csv)).toBe(true);
      expect(
        (await fsp.readFile(await store.localFileOf('segmentations/s1/measurements.csv'))).equals(csv),
      ).toBe(true);
      await store.forgetLocalFile('segmentations/s1/measurements.csv');
      await expect(store.readObject('segmentations/s1/nothing.zip')).rejects.toMatchObject({
        code: 'NoSuchKey',
        message: expect.stringContaining('nothing.zip'),
      });
      expect(await store.exists('segmentations/s1/nothing.zip')).toBe(false);
      await store.deleteObject('segmentations/s1/overlay.png');
      await store.deleteObject('segmentations/s1/overlay.png');
      expect(await store.exists('segmentations/s1/overlay.png')).toBe(false);
      await store.putObject('segmentations/s2/a', Readable.from([Buffer.from('a')]));
      expect(await store.deletePrefix('segmentations/')).toBe(2);
      expect(await store.exists('segmentations/s1/measurements.csv')).toBe(false);
    });

    it('tells a bucket it can use from one that does not exist, or that these credentials may not use', async () => {
      expect(await instance().bucketProblem()).toBeUndefined();
      const named = (bucket: string, secretAccessKey = rgw.secretAccessKey) =>
        new S3ObjectStore({
          endpoint: rgw.endpoint,
          region: rgw.region,
          bucket,
          forcePathStyle: true,
          credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey },
          tmpDir,
        });
      expect(await named('no-such-bucket').bucketProblem()).toBe('does not exist');
      expect(await named(rgw.bucket, 'not-the-secret').bucketProblem()).toMatch(/^may not be used/);
      await expect(named('no-such-bucket').deleteObject('images/a')).rejects.toMatchObject({
        kind: 'store_unavailable',
      });
    });
  },
);
