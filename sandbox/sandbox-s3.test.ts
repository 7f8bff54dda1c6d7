/**
 * The sandbox on S3 (`npm run sandbox -- --object-store s3` without a bucket): three instances on a
 * throwaway Ceph RGW and one PostgreSQL, behind nginx, and a client's whole round trip through the
 * one URL, its part PUTs going to RGW as the presigned URLs say. Skipped, with the reason, where
 * Debian's Ceph packages are absent (.ci/run installs them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTiff } from '../fixtures/generator/tiff-writer.js';
import { renderPreset } from '../fixtures/generator/synthetic.js';
import { ACME_KEY, HttpApi, tokenOf } from '../test-support/api-client.js';
import { contractChild } from './contract-child.js';
import { startSandbox, type Sandbox } from './launcher.js';
import { rgwUnavailableReason } from './throwaway-rgw.js';

/** S3's smallest part but the last, and so the mock's (its plans never go below it). */
const PART = 5 * 1024 * 1024;
const unavailable = rgwUnavailableReason();

let sandbox: Sandbox;
const reported: string[] = [];

beforeAll(async () => {
  if (unavailable) return;
  sandbox = await startSandbox({
    instances: 3,
    objectStore: { kind: 's3' },
    instanceArgs: [
      '--prediction-start-delay-ms',
      '0',
      '--prediction-run-delay-ms',
      '0',
      '--min-part-size',
      String(PART),
    ],
    report: (line) => reported.push(line),
  });
});

afterAll(async () => {
  await sandbox?.stop();
});

const tiff = (() => {
  const { plane } = renderPreset('easy-8bit-256');
  const encoded = encodeTiff([
    { width: plane.width, height: plane.height, bitsPerSample: 8, data: plane.data },
  ]);
  // Padded past two parts: bytes after the last strip are read by no TIFF reader, and the upload is
  // three parts of which the first carries the whole image.
  return Buffer.concat([encoded, Buffer.alloc(2 * PART + 1000 - encoded.length)]);
})();

interface Plan {
  part_size: number;
  upload_id: string;
  urls: Array<{ part_number: number; url: string }>;
}

/** Opens a resumable upload through `opener`, PUTs its parts where the plan says, completes through `completer`. */
async function resumableUpload(opener: HttpApi, completer: HttpApi, listParts: boolean): Promise<string> {
  const created = await opener.json<{ id: string; upload: Plan }>('POST', '/api/v1/image', {
    name: 'resumable.tif',
    size: tiff.length,
    image_type: 'TIFF',
    resumable: true,
  });
  const plan = created.upload;
  expect(plan.part_size).toBe(PART);
  expect(plan.urls.length).toBe(3);
  const parts = [];
  for (const { part_number, url } of plan.urls) {
    // Straight to S3, not through the sandbox: the URL is RGW's, signed for the part's length.
    expect(url.startsWith(sandbox.rgw!.endpoint)).toBe(true);
    const body = tiff.subarray((part_number - 1) * PART, part_number * PART);
    const put = await fetch(url, { method: 'PUT', body });
    expect(put.status, await put.text()).toBe(200);
    parts.push({ part_number, etag: put.headers.get('etag')! });
  }
  const complete = await completer.call(
    'POST',
    `/api/v1/upload/${created.id}/complete`,
    listParts ? { parts: [...parts].reverse() } : undefined,
  );
  expect(complete.status, complete.text).toBe(202);
  const ready = await completer.pollImage(created.id, { timeoutMs: 120_000 });
  expect(ready.upload_status).toBe('ready');
  return created.id;
}

describe.skipIf(unavailable)(
  `npm run sandbox -- --object-store s3${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    it('starts a throwaway RGW for the instances and says so', () => {
      expect(sandbox.rgw).toBeDefined();
      expect(sandbox.objectStoreDescription).toMatch(
        /^throwaway Ceph RGW at http:\/\/127\.0\.0\.1:\d+, bucket /,
      );
      expect(reported.some((line) => line.startsWith('S3: ready at '))).toBe(true);
      expect(sandbox.logs.map((l) => l.piece)).toContain('radosgw');
    });

    it("serves a client's whole round trip through the one URL: uploads, resumable uploads across instances, predict, every export, share", async () => {
      const api = new HttpApi(sandbox.url, ACME_KEY);
      const [first, second, third] = sandbox.instances.map((i) => new HttpApi(i.url, ACME_KEY));

      const single = await api.uploadBytes(tiff, 'single.tif');
      const singleId =
        single.upload_status === 'ready'
          ? single.id
          : (await api.pollImage(single.id, { timeoutMs: 120_000 })).id;
      // Opened on one instance, completed on another: no instance remembers the upload.
      const acrossListed = await resumableUpload(first, third, true);
      const acrossDiscovered = await resumableUpload(second, first, false);
      const throughOneUrl = await resumableUpload(api, api, true);

      for (const imageId of [singleId, acrossListed, acrossDiscovered, throughOneUrl]) {
        const { segmentationId, cellCount } = await api.completedSegmentation(undefined, imageId);
        expect(cellCount).toBeGreaterThan(0);
        for (const [file, type] of [
          ['overlay.png', 'image/png'],
          ['measurements.csv', 'text/csv'],
          ['rois.geojson', 'application/geo+json'],
          ['rois.zip', 'application/zip'],
        ]) {
          const exported = await api.send('GET', `/api/v1/export/${segmentationId}/${file}`);
          expect(exported.status, `${file} of ${imageId}`).toBe(200);
          expect(exported.headers.get('content-type') ?? '').toContain(type);
          expect((await exported.arrayBuffer()).byteLength).toBeGreaterThan(0);
        }
        const share = await api.createShare(segmentationId);
        const page = await fetch(`${sandbox.url}/share/${tokenOf(share)}`);
        expect(page.status).toBe(200);
        const image = await fetch(`${sandbox.url}/share/${tokenOf(share)}/image.png`);
        expect(image.status).toBe(200);
        expect(image.headers.get('content-type')).toBe('image/png');
      }
      // The same pixels, whichever way they came: the resumable uploads' segmentations match the single one's.
      const counts = await Promise.all(
        [singleId, acrossListed].map(
          async (id) => (await api.completedSegmentation(undefined, id)).cellCount,
        ),
      );
      expect(counts[1]).toBe(counts[0]);
    });

    it('passes the contract suite through the one URL, an independent client on S3', async () => {
      const run = await contractChild(
        sandbox,
        ['contract-tests/cli.ts', '--base-url', sandbox.url, '--profile', 'mock'],
        // the exploration runs over seeds of its own in sandbox.test.ts: here as a check run alone does
        { CONTRACT_STATEFUL_RUNS: '5', CONTRACT_STATEFUL_STEPS: '16' },
      );
      expect(run.code, run.output.slice(-4000)).toBe(0);
      expect(run.output).toMatch(/Conformance: \d+ clauses pass, 0 fail/);
    });

    it('aborts and deletes through the one URL, and a part sent after the abort is refused by S3', async () => {
      const api = new HttpApi(sandbox.url, ACME_KEY);
      const created = await api.json<{ id: string; upload: Plan }>('POST', '/api/v1/image', {
        name: 'aborted.tif',
        size: tiff.length,
        resumable: true,
      });
      const [firstPart, secondPart] = created.upload.urls;
      expect((await fetch(firstPart.url, { method: 'PUT', body: tiff.subarray(0, PART) })).status).toBe(200);
      expect((await api.call('POST', `/api/v1/upload/${created.id}/abort`)).status).toBeLessThan(300);
      const late = await fetch(secondPart.url, { method: 'PUT', body: tiff.subarray(PART, 2 * PART) });
      expect(late.status).toBe(404);
      expect((await api.call('GET', `/api/v1/upload/${created.id}`)).body).toMatchObject({
        upload_status: 'failed',
      });

      const kept = await api.uploadBytes(tiff, 'deleted.tif');
      expect((await api.call('DELETE', `/api/v1/image/${kept.id}`)).status).toBeLessThan(300);
      expect((await api.call('GET', `/api/v1/upload/${kept.id}`)).status).toBe(404);
    });
  },
);
