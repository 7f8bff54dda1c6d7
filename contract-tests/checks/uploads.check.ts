import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check } from '../harness/check.js';
import {
  openResumable,
  pollImage,
  putParts,
  trackImage,
  uploadFile,
  pollPrediction,
} from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { expectFieldError, type ValidationItem } from '../harness/validation-items.js';
import { corpusFile, largeTiff, presetTiff } from '../harness/sample-images.js';
import type {
  AbortUploadResponse,
  CompleteUploadResponse,
  CreatedImage,
  DeleteResponse,
  Image,
  Prediction,
  PredictionAck,
} from '../../openapi/generated/client/types.gen.js';

check(
  'a single-request upload answers the image ready, upload null',
  { clauses: ['UP-01', 'UP-11'] },
  async (ctx) => {
    const sample = presetTiff('easy-8bit-256');
    const response = await uploadFile(ctx, sample.bytes);
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    expect(response.body.upload).toBeNull();
    expect(response.body.image.upload_status).toBe('ready');
    expect(response.body.image.size).toBe(sample.bytes.length);
    expect(response.body.image.shape).toEqual([sample.height, sample.width]);
    const read = await ctx.api.call<Image>('getUpload', { params: { image_id: response.body.image.id } });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: response.body.image.id,
      upload_status: 'ready',
      shape: [sample.height, sample.width],
    });
  },
);

check(
  'a resumable upload opens with a plan that covers the size, and no storage key',
  { clauses: ['UP-02', 'UP-03'] },
  async (ctx) => {
    const size = 23 * 1024 * 1024 + 17;
    const response = await openResumable(ctx, size);
    expect(response.status).toBe(200);
    const { image, upload, success } = response.body;
    expect(success).toBe(true);
    expect(image.upload_status).toBe('uploading');
    expect(image.size).toBe(size);
    expect(upload).not.toBeNull();
    const plan = upload!;
    expect(plan.urls.map((u) => u.part_number)).toEqual(
      Array.from({ length: Math.ceil(size / plan.part_size) }, (_, i) => i + 1),
    );
    const text = JSON.stringify(response.body);
    expect(text).not.toMatch(/"(storage_)?key"\s*:/i);
    for (const { url } of plan.urls) expect(url).not.toContain(image.id);
  },
);

check(
  'a resumable upload completes without a body: 202 processing, then ready with shape',
  { clauses: ['UP-04', 'UP-05', 'UP-15', 'UP-17'] },
  async (ctx) => {
    const bytes = largeTiff(9 * 1024 * 1024);
    const opened = await openResumable(ctx, bytes.length);
    expect(opened.status).toBe(200);
    const plan = opened.body.upload!;
    const etags = await putParts(ctx.api, plan, bytes);
    await ctx.verify('UP-15', () => {
      for (const etag of etags.values()) expect(etag).toMatch(/^"[^"]+"$/);
    });
    await ctx.verify('UP-17', () => {
      for (const [part, etag] of etags) {
        const chunk = bytes.subarray((part - 1) * plan.part_size, part * plan.part_size);
        expect(etag, `part ${part} (${chunk.length} bytes)`).toBe(
          `"${createHash('md5').update(chunk).digest('hex')}"`,
        );
      }
    });
    const complete = await ctx.api.call<CompleteUploadResponse>('completeUpload', {
      params: { image_id: opened.body.image.id },
    });
    expect(complete.status).toBe(202);
    expect(complete.body).toEqual({ status: 'processing' });
    const done = await pollImage(ctx, opened.body.image.id);
    expect(done.upload_status).toBe('ready');
    expect(done.shape?.length).toBeGreaterThanOrEqual(2);
  },
);

check(
  'complete with an explicit parts list assembles exactly those parts',
  { clauses: ['UP-06'] },
  async (ctx) => {
    const bytes = largeTiff(9 * 1024 * 1024);
    const opened = await openResumable(ctx, bytes.length);
    const plan = opened.body.upload!;
    const etags = await putParts(ctx.api, plan, bytes);
    const parts = [...etags].map(([part_number, etag]) => ({ part_number, etag }));
    const complete = await ctx.api.call('completeUpload', {
      params: { image_id: opened.body.image.id },
      body: { parts },
    });
    expect(complete.status).toBe(202);
    expect((await pollImage(ctx, opened.body.image.id)).upload_status).toBe('ready');
  },
);

check(
  'complete with a wrong ETag is refused and leaves the upload open',
  { clauses: ['UP-06', 'UP-12'] },
  async (ctx) => {
    const bytes = presetTiff('easy-8bit-256').bytes;
    const opened = await openResumable(ctx, bytes.length);
    const etags = await putParts(ctx.api, opened.body.upload!, bytes);
    const wrong = [...etags.keys()].map((part_number) => ({
      part_number,
      etag: '"00000000000000000000000000000000"',
    }));
    const refused = await ctx.api.call('completeUpload', {
      params: { image_id: opened.body.image.id },
      body: { parts: wrong },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    const still = await ctx.api.call<Image>('getUpload', { params: { image_id: opened.body.image.id } });
    expect(still.body.upload_status).toBe('uploading');
    const right = await ctx.api.call('completeUpload', { params: { image_id: opened.body.image.id } });
    expect(right.status).toBe(202);
  },
);

check('a file that is not a TIFF ends failed with a reason', { clauses: ['UP-07'] }, async (ctx) => {
  const bytes = corpusFile('png-renamed.tif');
  const opened = await openResumable(ctx, bytes.length, 'not-a-tiff.tif');
  await putParts(ctx.api, opened.body.upload!, bytes);
  expect((await ctx.api.call('completeUpload', { params: { image_id: opened.body.image.id } })).status).toBe(
    202,
  );
  const done = await pollImage(ctx, opened.body.image.id);
  expect(done.upload_status).toBe('failed');
  expect(typeof done.upload_error).toBe('string');
  expect(done.upload_error!.length).toBeGreaterThan(0);

  const single = await uploadFile(ctx, bytes, 'not-a-tiff-single.tif');
  expect(single.status).toBe(200);
  expect(single.body.success).toBe(false);
  expect(single.body.image.upload_status).toBe('failed');
  expect(single.body.image.upload_error).toMatch(/TIFF/i);
});

check(
  'abort marks the image failed and keeps the record; a second abort or a complete is refused',
  { clauses: ['UP-08', 'UP-12', 'ERR-03'] },
  async (ctx) => {
    const opened = await openResumable(ctx, 1000);
    const id = opened.body.image.id;
    const abort = await ctx.api.call<AbortUploadResponse>('abortUpload', { params: { image_id: id } });
    expect(abort.status).toBe(200);
    expect(typeof abort.body.status).toBe('string');
    const read = await ctx.api.call<Image>('getUpload', { params: { image_id: id } });
    expect(read.body.upload_status).toBe('failed');
    for (const operationId of ['abortUpload', 'completeUpload']) {
      const again = await ctx.api.call<{ detail: unknown }>(operationId, { params: { image_id: id } });
      expect(again.status, operationId).toBe(422);
      expect(typeof again.body.detail).toBe('string');
    }
  },
);

check('complete on a ready image is refused with 422', { clauses: ['UP-12'] }, async (ctx) => {
  const uploaded = await uploadFile(ctx, presetTiff().bytes);
  const response = await ctx.api.call<{ detail: unknown }>('completeUpload', {
    params: { image_id: uploaded.body.image.id },
  });
  expect(response.status).toBe(422);
  expect(typeof response.body.detail).toBe('string');
});

check(
  'DELETE /upload/{id} removes an image, even one still uploading',
  { clauses: ['UP-09'] },
  async (ctx) => {
    const opened = await openResumable(ctx, 1000);
    const id = opened.body.image.id;
    const deleted = await ctx.api.call<DeleteResponse>('deleteUpload', { params: { image_id: id } });
    expect(deleted.status).toBe(200);
    expect(deleted.body.success).toBe(true);
    expect((await ctx.api.call('getUpload', { params: { image_id: id } })).status).toBe(404);
    expect((await ctx.api.call('getImage', { params: { image_id: id } })).status).toBe(404);
  },
);

check('DELETE /image/{id} removes an image', { clauses: ['UP-10'] }, async (ctx) => {
  const uploaded = await uploadFile(ctx, presetTiff().bytes);
  const id = uploaded.body.image.id;
  const deleted = await ctx.api.call<DeleteResponse>('deleteImage', { params: { image_id: id } });
  expect(deleted.status).toBe(200);
  expect(deleted.body.success).toBe(true);
  expect((await ctx.api.call('getImage', { params: { image_id: id } })).status).toBe(404);
  expect((await ctx.api.call('deleteImage', { params: { image_id: id } })).status).toBe(404);
});

check(
  'image-record creation with resumable: true answers the record and a plan; GET /image reads it',
  { clauses: ['UP-13'] },
  async (ctx) => {
    const bytes = presetTiff().bytes;
    const created = await ctx.api.call<CreatedImage>('createImage', {
      body: {
        name: `${ctx.target.namePrefix}record.tif`,
        size: bytes.length,
        image_type: 'TIFF',
        metadata: { well: 'B3' },
        resumable: true,
      },
    });
    expect(created.status).toBe(200);
    trackImage(ctx, ctx.api, created.body.id);
    expect(created.body.upload_status).toBe('uploading');
    expect(created.body.upload?.urls.length).toBeGreaterThanOrEqual(1);
    await putParts(ctx.api, created.body.upload!, bytes);
    expect((await ctx.api.call('completeUpload', { params: { image_id: created.body.id } })).status).toBe(
      202,
    );
    const read = await ctx.api.call<Image>('getImage', { params: { image_id: created.body.id } });
    expect(read.status).toBe(200);
    expect(['processing', 'ready']).toContain(read.body.upload_status);
    expect((await pollImage(ctx, created.body.id)).upload_status).toBe('ready');
  },
);

check(
  'image-record creation refuses server-controlled fields',
  { clauses: ['UP-14', 'VAL-02'] },
  async (ctx) => {
    const base = { name: `${ctx.target.namePrefix}x.tif`, size: 100, image_type: 'TIFF' };
    for (const [field, value] of Object.entries({
      id: randomUUID(),
      created_by: 'someone',
      organization_id: randomUUID(),
      upload_status: 'ready',
    })) {
      const response = await ctx.api.call<{ detail: Array<{ loc: string[] }> }>('createImage', {
        body: { ...base, [field]: value },
      });
      expect(response.status, field).toBe(422);
      expect(
        response.body.detail.some((item) => item.loc.includes(field)),
        `detail names ${field}`,
      ).toBe(true);
    }
  },
);

check(
  'malformed uploads answer 4xx in the documented shape, never 5xx',
  { clauses: ['VAL-05', 'VAL-02'], prismAnswersItself: true },
  async (ctx) => {
    // Each case with the field its 422 must name (loc) and, for a wrong value, the value it must echo (input).
    const cases: Array<[string, Parameters<typeof ctx.api.call>[1], string?, unknown?]> = [
      ['missing size', { body: { name: 'x.tif' } }, 'size'],
      ['size as string', { body: { name: 'x.tif', size: 'big' } }, 'size', 'big'],
      ['negative size', { body: { name: 'x.tif', size: -1 } }, 'size', -1],
      [
        'malformed JSON',
        { rawBody: '{"name": "x.tif", "size": ', headers: { 'content-type': 'application/json' } },
      ],
    ];
    for (const [label, options, field, input] of cases) {
      const response = await ctx.api.call<{ detail: unknown }>('uploadImage', options);
      expect(response.status, label).toBe(422);
      expect(Array.isArray(response.body.detail), label).toBe(true);
      if (field) expectFieldError(response.body.detail as ValidationItem[], field, label, input);
    }
    const noFile = new FormData();
    noFile.append('other', 'value');
    const missingFile = await ctx.api.call<{ detail: ValidationItem[] }>('uploadImage', { rawBody: noFile });
    expect(missingFile.status).toBe(422);
    expectFieldError(missingFile.body.detail, 'file', 'multipart without a file part');
  },
);

/** The query parameter of a presigned URL that matches `pattern` (S3's X-Amz-* or the mock's own). */
function queryParam(url: URL, pattern: RegExp): string | undefined {
  return [...url.searchParams.keys()].find((name) => pattern.test(name));
}

check(
  'a part PUT with a tampered signature or an edited expiry is refused with 403; the URL as given works',
  { clauses: ['UP-18', 'UP-19'] },
  async (ctx) => {
    const bytes = presetTiff('easy-8bit-256').bytes;
    const opened = await openResumable(ctx, bytes.length);
    expect(opened.status).toBe(200);
    const { url } = opened.body.upload!.urls[0];
    const given = new URL(url);
    const signature = queryParam(given, /signature/i);
    const expiry = queryParam(given, /^(expires|x-amz-expires|x-amz-date)$/i);
    if (!signature || !expiry)
      ctx.skip(
        `the part URL has no recognisable signature and expiry parameters: ${[...given.searchParams.keys()].join(', ')}`,
      );
    const tampered = new URL(url);
    const value = tampered.searchParams.get(signature!)!;
    const flipped = value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A');
    tampered.searchParams.set(signature!, flipped);
    const edited = new URL(url);
    const expires = edited.searchParams.get(expiry!)!;
    edited.searchParams.set(
      expiry!,
      /^\d+$/.test(expires)
        ? String(Number(expires) + 3600)
        : expires.replace(/\d(?=Z?$)/, (d) => String((Number(d) + 1) % 10)),
    );
    const put = (target: URL) => ctx.api.raw('PUT', target.toString(), { body: bytes, key: null });
    const refusedSignature = await put(tampered);
    await ctx.verify('UP-18', () =>
      expect(refusedSignature.status, `PUT with ${signature} edited`).toBe(403),
    );
    const refusedExpiry = await put(edited);
    await ctx.verify('UP-19', () => expect(refusedExpiry.status, `PUT with ${expiry} moved`).toBe(403));
    const accepted = await put(given);
    expect(accepted.status, 'the URL as given').toBe(200);
    const image = await ctx.api.call<Image>('getUpload', { params: { image_id: opened.body.image.id } });
    expect(image.body.upload_status).toBe('uploading');
  },
);

check(
  'fields that must not change between reads do not: image, prediction and share',
  { clauses: ['STB-01'] },
  async (ctx) => {
    const bytes = presetTiff('easy-8bit-256').bytes;
    const opened = await openResumable(ctx, bytes.length);
    const id = opened.body.image.id;
    const imageFields = (image: Image & Record<string, unknown>) =>
      Object.fromEntries(['id', 'name', 'size', 'image_type', 'created_at'].map((k) => [k, image[k]]));
    const reads: Array<Record<string, unknown>> = [
      imageFields(opened.body.image as Image & Record<string, unknown>),
    ];
    await putParts(ctx.api, opened.body.upload!, bytes);
    reads.push(
      imageFields(
        (await ctx.api.call<Image & Record<string, unknown>>('getUpload', { params: { image_id: id } })).body,
      ),
    );
    expect((await ctx.api.call('completeUpload', { params: { image_id: id } })).status).toBe(202);
    const ready = (await pollImage(ctx, id)) as Image & Record<string, unknown>;
    reads.push(imageFields(ready));
    const again = (
      await ctx.api.call<Image & Record<string, unknown>>('getImage', { params: { image_id: id } })
    ).body;
    reads.push(imageFields(again));
    await ctx.verify('STB-01', () => {
      for (const read of reads.slice(1)) expect(read, 'image across reads').toEqual(reads[0]);
      expect(again.shape, 'shape once ready').toEqual(ready.shape);
      expect(again.processed_at, 'processed_at once ready').toEqual(ready.processed_at);
    });

    const modelId = await fittingModelId(ctx.api);
    const ack = await ctx.api.call<PredictionAck>('createPrediction', {
      body: { image_id: id, model_id: modelId },
    });
    expect(ack.status).toBe(200);
    const predictionFields = (p: Prediction & Record<string, unknown>) =>
      Object.fromEntries(['prediction_id', 'image_id', 'model_id', 'created_at'].map((k) => [k, p[k]]));
    const first = (
      await ctx.api.call<Prediction & Record<string, unknown>>('getPrediction', {
        params: { prediction_id: ack.body.prediction_id },
      })
    ).body;
    const done = (await pollPrediction(ctx, ack.body.prediction_id)) as Prediction & Record<string, unknown>;
    const reread = (
      await ctx.api.call<Prediction & Record<string, unknown>>('getPrediction', {
        params: { prediction_id: ack.body.prediction_id },
      })
    ).body;
    await ctx.verify('STB-01', () => {
      expect(predictionFields(done), 'prediction across polls').toEqual(predictionFields(first));
      expect(predictionFields(reread), 'prediction after completion').toEqual(predictionFields(first));
      expect(first).toMatchObject({ image_id: id, model_id: modelId });
      expect([reread.segmentation_id, reread.cell_count], 'result once COMPLETED').toEqual([
        done.segmentation_id,
        done.cell_count,
      ]);
    });

    const share = await ctx.api.call<Record<string, unknown> & { id: string }>('createShare', {
      body: { segmentation_id: done.segmentation_id },
    });
    expect(share.status).toBe(200);
    ctx.cleanup.add(() =>
      ctx.api.call('revokeShare', { params: { share_id: share.body.id }, unvalidated: true }),
    );
    const shareFields = (s: Record<string, unknown>) =>
      Object.fromEntries(
        ['id', 'segmentation_id', 'url', 'created_at', 'access', 'role'].map((k) => [k, s[k]]),
      );
    const shareRead = (
      await ctx.api.call<Record<string, unknown>>('getShare', { params: { share_id: share.body.id } })
    ).body;
    const revoked = await ctx.api.call<Record<string, unknown>>('revokeShare', {
      params: { share_id: share.body.id },
    });
    const afterRevoke = (
      await ctx.api.call<Record<string, unknown>>('getShare', { params: { share_id: share.body.id } })
    ).body;
    await ctx.verify('STB-01', () => {
      expect(shareFields(shareRead), 'share on read').toEqual(shareFields(share.body));
      expect(shareFields(afterRevoke), 'share after revoke').toEqual(shareFields(share.body));
      if (revoked.status === 200)
        expect(afterRevoke.revoked_at, 'revoked_at read back').toEqual(revoked.body.revoked_at);
    });
  },
);
