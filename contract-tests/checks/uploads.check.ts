import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check } from '../harness/check.js';
import {
  openResumable,
  pollImage,
  putParts,
  trackImage,
  uploadFile,
  uploadFileWithQuotedBoundary,
} from '../harness/flows.js';
import { expectStatus, need } from '../harness/steps.js';
import { expectFieldError, type ValidationItem } from '../harness/validation-items.js';
import { corpusFile, largeTiff, largeTiffSide, presetTiff } from '../harness/sample-images.js';
import type {
  AbortUploadResponse,
  CompleteUploadResponse,
  CreatedImage,
  DeleteResponse,
  Image,
  UploadResponse,
} from '../../openapi/generated/client/types.gen.js';
import type { components } from '../../openapi/generated/mock-control-types.js';
import { PART_URL_LIFETIME_S } from '../model/part-url-life.js';

type MockClock = components['responses']['MockClock']['content']['application/json'];

check(
  'a single-request upload answers the image ready, upload null',
  { clauses: ['UP-01', 'UP-11'] },
  async (ctx) => {
    const sample = presetTiff('easy-8bit-256');
    const response = await uploadFile(ctx, sample.bytes);
    expectStatus(response, 200);
    const { body } = response;
    expect(body.success, 'POST /upload (single request): success').toBe(true);
    expect(body.upload, 'POST /upload (single request): upload').toBeNull();
    expect(body.image.upload_status, 'POST /upload (single request): image.upload_status').toBe('ready');
    expect(body.image.size, 'POST /upload (single request): image.size, the bytes sent').toBe(
      sample.bytes.length,
    );
    expect(body.image.shape, 'POST /upload (single request): image.shape [height, width]').toEqual([
      sample.height,
      sample.width,
    ]);
    const read = await ctx.api.call<Image>('getUpload', { params: { image_id: response.body.image.id } });
    expectStatus(read, 200);
    expect(read.body, 'GET /upload/{id} after the upload').toMatchObject({
      id: response.body.image.id,
      upload_status: 'ready',
      shape: [sample.height, sample.width],
    });
    // the same file from a client that quotes the boundary parameter, as RFC 2046 allows
    const quoted = await uploadFileWithQuotedBoundary(ctx, sample.bytes, 'quoted-boundary.tif');
    expectStatus(quoted, 200, 'POST /upload multipart with boundary="…" quoted');
    expect(quoted.body.image.upload_status, 'POST /upload, boundary quoted: image.upload_status').toBe(
      'ready',
    );
    // the file part declared application/octet-stream, as curl -F and most HTTP libraries send a
    // file they know no type of: the document's encoding of `file` lists it beside image/tiff
    const form = new FormData();
    const name = `${ctx.target.namePrefix}octet-stream.tif`;
    form.append('file', new Blob([sample.bytes], { type: 'application/octet-stream' }), name);
    const octets = await ctx.api.call<UploadResponse>('uploadImage', {
      rawBody: form,
      baseUrl: ctx.target.directBaseUrl,
    });
    if (octets.status === 200) trackImage(ctx, ctx.api, octets.body.image.id);
    expectStatus(octets, 200, 'POST /upload multipart, the file part as application/octet-stream');
    expect(octets.body.image.upload_status, 'POST /upload, part as octet-stream: image.upload_status').toBe(
      'ready',
    );
  },
);

check(
  "a single-request upload's shape is its TIFF's layout: [pages, height, width] for three pages, [height, width, samples] for RGB",
  { clauses: ['UP-25'] },
  async (ctx) => {
    // the oracle reads each file's directories (model/tiff-layout.ts) and holds the upload's
    // answer and each read to the shape the document gives that layout; the files are the
    // fixtures' corpus, whose expected shapes the mock's own tests hold too
    for (const [file, shape] of [
      ['multipage-3.tif', [3, 64, 96]],
      ['rgb-8bit.tif', [64, 96, 3]],
    ] as const) {
      const uploaded = need(await uploadFile(ctx, corpusFile(file), file), 200, ['image.id']).body.image;
      expect(uploaded.upload_status, `POST /upload of ${file}: upload_status`).toBe('ready');
      expect(uploaded.shape, `POST /upload of ${file}: shape`).toEqual(shape);
      const read = need(await ctx.api.call<Image>('getUpload', { params: { image_id: uploaded.id } }), 200);
      expect(read.body.shape, `GET /upload/{id} of ${file}: shape`).toEqual(shape);
    }
  },
);

check(
  'a resumable upload completed without a body before every part is PUT answers 422 and stays open',
  { clauses: ['UP-26'] },
  async (ctx) => {
    // the parts found in storage must add up to the size opened (document, completeUpload): with
    // none PUT, then the first alone, the complete is refused and the upload stays open for the
    // rest, never assembled short (a conversion that could only fail). The interface shows no
    // answer for a discovery short of the size, so this is a check of its own, of the assumed
    // UP-26, whose failure leaves the stated complete of UP-04 and UP-05 unjudged by it
    const bytes = largeTiff(9 * 1024 * 1024);
    const opened = need(await openResumable(ctx, bytes.length, 'found-short.tif'), 200, [
      'image.id',
      'upload.urls',
    ]);
    const plan = opened.body.upload!;
    const params = { image_id: opened.body.image.id };
    const tooSoon = async (when: string) => {
      const refused = await ctx.api.call<{ detail: unknown }>('completeUpload', { params });
      expectStatus(refused, 422, `complete with no body, ${when}`);
      expect(typeof refused.body.detail, `complete with no body, ${when}: type of detail`).toBe('string');
      const read = need(await ctx.api.call<Image>('getUpload', { params }), 200);
      expect(read.body.upload_status, `GET /upload/{id} after the complete ${when}`).toBe('uploading');
    };
    await tooSoon('no part PUT yet');
    await putParts(ctx.api, plan, bytes, [1]);
    if (plan.urls.length > 1) await tooSoon(`part 1 of ${plan.urls.length} PUT`);
  },
);

check(
  'a resumable upload opens with a plan that covers the size, and no storage key',
  { clauses: ['UP-02', 'UP-03'] },
  async (ctx) => {
    const size = 23 * 1024 * 1024 + 17;
    const response = await openResumable(ctx, size);
    expectStatus(response, 200, `open a resumable upload of ${size} bytes`);
    const { image, upload, success } = response.body;
    expect(success, 'POST /upload (resumable): success').toBe(true);
    expect(image.upload_status, 'POST /upload (resumable): image.upload_status').toBe('uploading');
    expect(image.size, 'POST /upload (resumable): image.size, the size sent').toBe(size);
    expect(upload, 'POST /upload (resumable): upload, the plan').not.toBeNull();
    const plan = upload!;
    expect(
      plan.urls.map((u) => u.part_number),
      'POST /upload (resumable): upload.urls part numbers',
    ).toEqual(Array.from({ length: Math.ceil(size / plan.part_size) }, (_, i) => i + 1));
    const text = JSON.stringify(response.body);
    expect(text, 'POST /upload (resumable): the answer names no storage key').not.toMatch(
      /"(storage_)?key"\s*:/i,
    );
    for (const { url } of plan.urls) expect(url, 'a part URL holds no image id').not.toContain(image.id);
    // the same file opened again while the first is still uploading (a plate re-imaged, a client
    // retrying): an upload of its own, never the first one's plan, where its parts would land
    const again = need(await openResumable(ctx, size), 200, ['image.id', 'upload.urls']);
    expect(again.body.upload!.upload_id, 'the same name and size opened again: upload_id').not.toBe(
      plan.upload_id,
    );
    // the part count at its edges: 1 byte, and one byte past a whole part (the last part 1 byte long)
    for (const edge of [1, plan.part_size + 1]) {
      const opened = need(await openResumable(ctx, edge, `edge-${edge}.tif`), 200, ['upload.urls']);
      expect(opened.body.upload!.urls.length, `POST /upload (resumable) of ${edge} bytes: parts`).toBe(
        Math.ceil(edge / opened.body.upload!.part_size),
      );
    }
    // the media type with a charset parameter, as many HTTP clients send JSON: still Mode B
    const charset = await ctx.api.call<UploadResponse>('uploadImage', {
      body: { name: `${ctx.target.namePrefix}charset.tif`, size },
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    if (charset.status === 200) trackImage(ctx, ctx.api, charset.body.image.id);
    expectStatus(charset, 200, 'open a resumable upload under Content-Type: application/json; charset=utf-8');
    expect(charset.body.image.upload_status, 'POST /upload (JSON with a charset): upload_status').toBe(
      'uploading',
    );
  },
);

check(
  'a resumable upload completes without a body: 202 processing, then ready with shape',
  { clauses: ['UP-04', 'UP-05', 'UP-15', 'UP-17'] },
  async (ctx) => {
    const bytes = largeTiff(9 * 1024 * 1024);
    const opened = need(await openResumable(ctx, bytes.length), 200, ['image.id', 'upload.urls']);
    const plan = opened.body.upload!;
    const params = { image_id: opened.body.image.id };
    const etags = await putParts(ctx.api, plan, bytes);
    await ctx.verify('UP-15', () => {
      for (const [part, etag] of etags) expect(etag, `ETag of part ${part}`).toMatch(/^"[^"]+"$/);
    });
    await ctx.verify('UP-17', () => {
      for (const [part, etag] of etags) {
        const chunk = bytes.subarray((part - 1) * plan.part_size, part * plan.part_size);
        expect(etag, `part ${part} (${chunk.length} bytes)`).toBe(
          `"${createHash('md5').update(chunk).digest('hex')}"`,
        );
      }
    });
    const complete = await ctx.api.call<CompleteUploadResponse>('completeUpload', { params });
    expectStatus(complete, 202);
    expect(complete.body, 'POST /upload/{id}/complete: body').toEqual({ status: 'processing' });
    const done = await pollImage(ctx, opened.body.image.id);
    expect(done.upload_status, 'GET /upload/{id} after complete: upload_status').toBe('ready');
    expect(done.shape?.length, 'GET /upload/{id} once ready: dimensions in shape').toBeGreaterThanOrEqual(2);
  },
);

check(
  'complete with an explicit parts list assembles exactly those parts, in part order whatever the order listed',
  { clauses: ['UP-06'] },
  async (ctx) => {
    const minBytes = 9 * 1024 * 1024;
    const bytes = largeTiff(minBytes);
    const side = largeTiffSide(minBytes);
    const opened = need(await openResumable(ctx, bytes.length), 200, ['image.id', 'upload.urls']);
    const id = opened.body.image.id;
    const plan = opened.body.upload!;
    if (plan.urls.length < 2) ctx.skip(`a plan of ${plan.urls.length} part for ${bytes.length} bytes`);
    const etags = await putParts(ctx.api, plan, bytes);
    const parts = [...etags].map(([part_number, etag]) => ({ part_number, etag }));
    const complete = (listed: typeof parts) =>
      ctx.api.call<{ detail: unknown }>('completeUpload', {
        params: { image_id: id },
        body: { parts: listed },
      });
    const stillOpen = async (after: string) => {
      const read = need(await ctx.api.call<Image>('getUpload', { params: { image_id: id } }), 200);
      expect(read.body.upload_status, `GET /upload/{id} after ${after}: upload_status`).toBe('uploading');
      expect(read.body.size, `GET /upload/{id} after ${after}: size`).toBe(bytes.length);
    };
    // The size is exact and every part holds bytes: a subset of the plan never adds up to it.
    const subset = await complete(parts.slice(0, 1));
    expectStatus(subset, 422, 'complete with part 1 only, a subset that falls short of the size');
    expect(typeof subset.body.detail, 'complete with a subset: type of detail').toBe('string');
    await stillOpen('the subset was refused');
    const outside = await complete([...parts, { part_number: plan.urls.length + 1, etag: parts[0].etag }]);
    expectStatus(outside, 422, `complete listing part ${plan.urls.length + 1}, outside the plan`);
    await stillOpen('the part outside the plan was refused');
    // Quotes are optional: the last part listed without them, the others as their PUT answered
    const [last, ...rest] = [...parts].reverse();
    const reversed = await complete([{ ...last, etag: last.etag.replaceAll('"', '') }, ...rest]);
    expectStatus(reversed, 202, 'complete with every part listed, last part first (its ETag unquoted)');
    const done = await pollImage(ctx, id);
    // Assembled in the order listed, the TIFF's header would not lead the file: it would not convert.
    expect(done.upload_status, 'GET /upload/{id} after the reversed list: upload_status').toBe('ready');
    expect(done.shape, 'GET /upload/{id} after the reversed list: shape, the TIFF sent').toEqual([
      side,
      side,
    ]);
    expect(done.size, 'GET /upload/{id} after the reversed list: size').toBe(bytes.length);
  },
);

check(
  'complete listing every part, one of them twice, is refused with 422 and leaves the upload open (the document)',
  { clauses: ['UP-23'] },
  async (ctx) => {
    // the interface only says parts assembles a subset: a target that merges the repeat and
    // assembles (202) follows it, so this is judged here alone, never under UP-06
    const bytes = presetTiff('easy-8bit-256').bytes;
    const opened = need(await openResumable(ctx, bytes.length), 200, ['image.id', 'upload.urls']);
    const etags = await putParts(ctx.api, opened.body.upload!, bytes);
    const parts = [...etags].map(([part_number, etag]) => ({ part_number, etag }));
    const params = { image_id: opened.body.image.id };
    const twice = await ctx.api.call<{ detail: unknown }>('completeUpload', {
      params,
      body: { parts: [...parts, parts[0]] },
    });
    expectStatus(twice, 422, 'complete listing every part, part 1 twice');
    expect(typeof twice.body.detail, 'complete with part 1 twice: type of detail').toBe('string');
    const read = need(await ctx.api.call<Image>('getUpload', { params }), 200);
    expect(read.body.upload_status, 'GET /upload/{id} after the refused list: upload_status').toBe(
      'uploading',
    );
  },
);

check(
  'complete with a wrong ETag is refused with 422 and leaves the upload open; an empty parts list then completes it',
  { clauses: ['UP-06', 'UP-12', 'UP-05'] },
  async (ctx) => {
    const bytes = presetTiff('easy-8bit-256').bytes;
    const opened = need(await openResumable(ctx, bytes.length), 200, ['image.id', 'upload.urls']);
    const etags = await putParts(ctx.api, opened.body.upload!, bytes);
    const wrong = [...etags.keys()].map((part_number) => ({
      part_number,
      etag: '"00000000000000000000000000000000"',
    }));
    const refused = await ctx.api.call<{ detail: unknown }>('completeUpload', {
      params: { image_id: opened.body.image.id },
      body: { parts: wrong },
    });
    expectStatus(refused, 422, 'complete with a wrong ETag');
    expect(typeof refused.body.detail, 'complete with a wrong ETag: type of detail').toBe('string');
    const still = need(
      await ctx.api.call<Image>('getUpload', { params: { image_id: opened.body.image.id } }),
      200,
    );
    expect(still.body.upload_status, 'GET /upload/{id} after the refused complete: upload_status').toBe(
      'uploading',
    );
    // "With no body or empty parts, the service discovers the uploaded parts": [] is no subset of nothing
    const right = await ctx.api.call('completeUpload', {
      params: { image_id: opened.body.image.id },
      body: { parts: [] },
    });
    expectStatus(right, 202, 'complete with an empty parts list after the refusal');
  },
);

check('a file that is not a TIFF ends failed with a reason', { clauses: ['UP-07'] }, async (ctx) => {
  const bytes = corpusFile('png-renamed.tif');
  const opened = need(await openResumable(ctx, bytes.length, 'not-a-tiff.tif'), 200, [
    'image.id',
    'upload.urls',
  ]);
  await putParts(ctx.api, opened.body.upload!, bytes);
  need(await ctx.api.call('completeUpload', { params: { image_id: opened.body.image.id } }), 202);
  const done = await pollImage(ctx, opened.body.image.id);
  expect(done.upload_status, 'GET /upload/{id} of a PNG completed as a TIFF: upload_status').toBe('failed');
  expect(done.upload_error, 'GET /upload/{id} of a failed upload: upload_error').toMatch(/\S/);
  // the same record through the other route that returns it: the reason must be the same
  const image = need(
    await ctx.api.call<Image>('getImage', { params: { image_id: opened.body.image.id } }),
    200,
  );
  expect(
    image.body.upload_error,
    'GET /image/{id} of the failed upload: upload_error against GET /upload/{id}',
  ).toBe(done.upload_error);

  const single = await uploadFile(ctx, bytes, 'not-a-tiff-single.tif');
  expectStatus(single, 200, 'a PNG sent in one request');
  expect(single.body.success, 'POST /upload of a PNG in one request: success').toBe(false);
  expect(single.body.image.upload_status, 'POST /upload of a PNG: image.upload_status').toBe('failed');
  expect(single.body.image.upload_error, 'POST /upload of a PNG: image.upload_error').toMatch(/TIFF/i);
});

check(
  'abort marks the image failed and keeps the record; a second abort or a complete is refused',
  { clauses: ['UP-08', 'UP-12', 'ERR-03'] },
  async (ctx) => {
    const opened = need(await openResumable(ctx, 1000), 200, ['image.id']);
    const id = opened.body.image.id;
    const abort = await ctx.api.call<AbortUploadResponse>('abortUpload', { params: { image_id: id } });
    expectStatus(abort, 200);
    expect(typeof abort.body.status, 'POST /upload/{id}/abort: type of status').toBe('string');
    const read = need(await ctx.api.call<Image>('getUpload', { params: { image_id: id } }), 200);
    expect(read.body.upload_status, 'GET /upload/{id} after abort: upload_status').toBe('failed');
    for (const operationId of ['abortUpload', 'completeUpload']) {
      const again = await ctx.api.call<{ detail: unknown }>(operationId, { params: { image_id: id } });
      expectStatus(again, 422, `${operationId} after abort`);
      expect(typeof again.body.detail, `${operationId} after abort: type of detail`).toBe('string');
    }
  },
);

check('complete on a ready image is refused with 422', { clauses: ['UP-12'] }, async (ctx) => {
  const uploaded = need(await uploadFile(ctx, presetTiff().bytes), 200, ['image.id']);
  const response = await ctx.api.call<{ detail: unknown }>('completeUpload', {
    params: { image_id: uploaded.body.image.id },
  });
  expectStatus(response, 422, 'complete on an image uploaded in one request');
  expect(typeof response.body.detail, 'completeUpload 422: type of detail').toBe('string');
});

check(
  'DELETE /upload/{id} removes an image, even one still uploading',
  { clauses: ['UP-09'] },
  async (ctx) => {
    const opened = need(await openResumable(ctx, 1000), 200, ['image.id']);
    const id = opened.body.image.id;
    const deleted = await ctx.api.call<DeleteResponse>('deleteUpload', { params: { image_id: id } });
    expectStatus(deleted, 200);
    expect(deleted.body.success, 'DELETE /upload/{id}: success').toBe(true);
    expectStatus(await ctx.api.call('getUpload', { params: { image_id: id } }), 404, 'after the delete');
    expectStatus(await ctx.api.call('getImage', { params: { image_id: id } }), 404, 'after the delete');
  },
);

check('DELETE /image/{id} removes an image', { clauses: ['UP-10'] }, async (ctx) => {
  const uploaded = need(await uploadFile(ctx, presetTiff().bytes), 200, ['image.id']);
  const id = uploaded.body.image.id;
  const deleted = await ctx.api.call<DeleteResponse>('deleteImage', { params: { image_id: id } });
  expectStatus(deleted, 200);
  expect(deleted.body.success, 'DELETE /image/{id}: success').toBe(true);
  expectStatus(await ctx.api.call('getImage', { params: { image_id: id } }), 404, 'after the delete');
  expectStatus(await ctx.api.call('deleteImage', { params: { image_id: id } }), 404, 'a second delete');
});

check(
  'image-record creation with resumable: true answers the record and a plan sized for its size, without it no plan; GET /image reads it',
  { clauses: ['UP-13', 'UP-03'] },
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
    expectStatus(created, 200, 'create an image record with resumable: true');
    trackImage(ctx, ctx.api, created.body.id);
    expect(created.body.upload_status, 'POST /image: upload_status').toBe('uploading');
    expect(created.body.upload?.urls.length, 'POST /image: number of part URLs').toBeGreaterThanOrEqual(1);
    await putParts(ctx.api, created.body.upload!, bytes);
    need(await ctx.api.call('completeUpload', { params: { image_id: created.body.id } }), 202);
    const read = await ctx.api.call<Image>('getImage', { params: { image_id: created.body.id } });
    expectStatus(read, 200, 'read the record back');
    expect(['processing', 'ready'], 'GET /image/{id} after complete: upload_status').toContain(
      read.body.upload_status,
    );
    expect(
      (await pollImage(ctx, created.body.id)).upload_status,
      'GET /upload/{id} after complete: upload_status',
    ).toBe('ready');
    // A record past one part (no bytes sent): a URL for each part of its size, as POST /upload's plan
    const size = 23 * 1024 * 1024 + 17;
    const large = await ctx.api.call<CreatedImage>('createImage', {
      body: { name: `${ctx.target.namePrefix}large-record.tif`, size, image_type: 'TIFF', resumable: true },
    });
    expectStatus(large, 200, `create an image record of ${size} bytes with resumable: true`);
    trackImage(ctx, ctx.api, large.body.id);
    const plan = large.body.upload!;
    expect(
      plan.urls.map((u) => u.part_number),
      `POST /image of ${size} bytes: upload.urls part numbers`,
    ).toEqual(Array.from({ length: Math.ceil(size / plan.part_size) }, (_, i) => i + 1));
    // resumable is a boolean defaulting to false (a generated client sends it so): a record asked
    // with false, or without it, opens no multipart upload, so the oracle predicts upload null
    for (const resumable of [false, undefined]) {
      const plain = await ctx.api.call<CreatedImage>('createImage', {
        body: { name: `${ctx.target.namePrefix}plain-record.tif`, size: 1000, image_type: 'TIFF', resumable },
      });
      expectStatus(plain, 200, `create an image record with resumable ${String(resumable)}`);
      trackImage(ctx, ctx.api, plain.body.id);
      expect(plain.body.upload, `POST /image with resumable ${String(resumable)}: upload`).toBeNull();
    }
  },
);

// its own check, so a target refusing this edge fails UP-05 alone, never the record's happy path
check(
  'complete with no body under a JSON content type discovers the parts',
  { clauses: ['UP-05'] },
  async (ctx) => {
    const bytes = presetTiff().bytes;
    const created = need(
      await ctx.api.call<CreatedImage>('createImage', {
        body: {
          name: `${ctx.target.namePrefix}json-complete.tif`,
          size: bytes.length,
          image_type: 'TIFF',
          resumable: true,
        },
      }),
      200,
      ['id', 'upload'],
    );
    trackImage(ctx, ctx.api, created.body.id);
    await putParts(ctx.api, created.body.upload!, bytes);
    // no body, under the JSON content type many HTTP clients send on every POST: still no body,
    // so the service discovers the parts
    const complete = await ctx.api.call('completeUpload', {
      params: { image_id: created.body.id },
      headers: { 'content-type': 'application/json' },
      rawBody: '',
    });
    expectStatus(complete, 202, 'complete with Content-Type: application/json and no body');
    expect((await pollImage(ctx, created.body.id)).upload_status, 'GET /upload/{id} after complete').toBe(
      'ready',
    );
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
      expectStatus(response, 422, `createImage with the server-controlled field ${field}`);
      expect(
        response.body.detail.map((item) => item.loc),
        `createImage with ${field}: the locs of the 422's detail name ${field}`,
      ).toContainEqual(expect.arrayContaining([field]));
    }
  },
);

/** Past the interface's 4 GB under any reading (4 GiB is the document's `maximum` of size). */
const OVER_4_GB = 4 * 1024 ** 3 + 1;
/** Within 4 GB under any reading (decimal or binary). */
const WITHIN_4_GB = 4_000_000_000;

check(
  'a file over 4 GB is refused when its upload or record is opened; one within 4 GB is taken',
  { clauses: ['UP-21'] },
  async (ctx) => {
    // the interface shows no status for it: any 4xx but the storage cap's 402 refuses the size
    const refusal = [400, 413, 422];
    expectStatus(
      await openResumable(ctx, OVER_4_GB, 'over-4gb.tif'),
      refusal,
      'open an upload of 4 GiB + 1 bytes',
    );
    const record = await ctx.api.call('createImage', {
      body: { name: `${ctx.target.namePrefix}over-4gb.tif`, size: OVER_4_GB, resumable: true },
    });
    expectStatus(record, refusal, 'an image record of 4 GiB + 1 bytes');
    const within = await openResumable(ctx, WITHIN_4_GB, 'within-4gb.tif');
    expectStatus(within, 200, 'open an upload of 4,000,000,000 bytes');
  },
);

/** The document's maximum of size, its reading of the interface's "4 GB". */
const FOUR_GIB = 4 * 1024 ** 3;

check(
  "a file of exactly 4 GiB, the document's maximum of size, is taken when its upload or record is opened",
  { clauses: ['UP-24'] },
  async (ctx) => {
    // opened only (no bytes sent) and deleted at the end: a real target stores nothing of it
    expectStatus(await openResumable(ctx, FOUR_GIB, 'four-gib.tif'), 200, 'open an upload of 4 GiB');
    const record = await ctx.api.call<CreatedImage>('createImage', {
      body: {
        name: `${ctx.target.namePrefix}four-gib.tif`,
        size: FOUR_GIB,
        image_type: 'TIFF',
        resumable: true,
      },
    });
    if (record.status === 200) trackImage(ctx, ctx.api, record.body.id);
    expectStatus(record, 200, 'an image record of 4 GiB');
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
      expectStatus(response, 422, `uploadImage, ${label}`);
      expect(response.body.detail, `uploadImage, ${label}: detail is an array`).toBeInstanceOf(Array);
      if (field) expectFieldError(response.body.detail as ValidationItem[], field, label, input);
    }
    const noFile = new FormData();
    noFile.append('other', 'value');
    const missingFile = await ctx.api.call<{ detail: ValidationItem[] }>('uploadImage', { rawBody: noFile });
    expectStatus(missingFile, 422, 'uploadImage, multipart without a file part');
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
    const opened = need(await openResumable(ctx, bytes.length), 200, ['image.id', 'upload.urls.0.url']);
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
    await ctx.verify('UP-18', () => expectStatus(refusedSignature, 403, `PUT with ${signature} edited`));
    const refusedExpiry = await put(edited);
    await ctx.verify('UP-19', () => expectStatus(refusedExpiry, 403, `PUT with ${expiry} moved`));
    const accepted = await put(given);
    expectStatus(accepted, 200, 'the part URL as given');
    const image = need(
      await ctx.api.call<Image>('getUpload', { params: { image_id: opened.body.image.id } }),
      200,
    );
    expect(image.body.upload_status, 'GET /upload/{id} after one part PUT: upload_status').toBe('uploading');
  },
);

check(
  "image-record creation with a folder id outside the caller's organization answers 404 and creates nothing",
  { clauses: ['UP-20'] },
  async (ctx) => {
    const name = `${ctx.target.namePrefix}foreign-folder.tif`;
    const refused = await ctx.api.call<{ detail: unknown }>('createImage', {
      body: { name, size: 1000, image_type: 'TIFF', metadata: {}, folder_id: randomUUID(), resumable: true },
    });
    expectStatus(refused, 404, 'createImage with a folder id of no folder of ours');
    expect(typeof refused.body.detail, 'createImage 404: type of detail').toBe('string');
  },
);

check(
  'a part URL is taken just before the end of its 24-hour life and refused with 403 AccessDenied just after',
  // The mock's clock is every check's: moved, it would put other checks' answers a day ahead.
  { clauses: ['UP-22'], requires: ['control'], alone: true },
  async (ctx) => {
    const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
    const clock = async (body?: { now?: string; reset?: boolean }) => {
      const answer = body
        ? await ctx.api.call<MockClock>('mockSetClock', { ...admin, body })
        : await ctx.api.call<MockClock>('mockGetClock', admin);
      return need(answer, 200, ['now', 'offset_ms']).body;
    };
    const before = await clock();
    ctx.cleanup.add(() =>
      clock(
        before.offset_ms === 0
          ? { reset: true }
          : { now: new Date(Date.now() + before.offset_ms).toISOString() },
      ),
    );
    const bytes = presetTiff('easy-8bit-256').bytes;
    const opened = need(await openResumable(ctx, bytes.length), 200, ['image.id', 'upload.urls.0.url']);
    const after = await clock();
    const url = new URL(opened.body.upload!.urls[0].url);
    if (queryParam(url, /^x-amz-date$/i))
      ctx.skip(
        "the part URL is signed by an S3 store (X-Amz-Date): it lives by the store's clock, which the mock's control plane does not move",
      );
    // The plan was handed out between the two reads: its URLs end within that span, a day later.
    const lastSecondFrom = Math.floor(Date.parse(before.now) / 1000) + PART_URL_LIFETIME_S;
    const lastSecondTo = Math.floor(Date.parse(after.now) / 1000) + PART_URL_LIFETIME_S;
    const put = () => ctx.api.raw('PUT', url.toString(), { body: bytes, key: null });
    // A few seconds of margin: the PUT must reach the store before the URL's last second ends,
    // even on a loaded machine.
    await clock({ now: new Date((lastSecondFrom - 4) * 1000).toISOString() });
    const taken = await put();
    await clock({ now: new Date((lastSecondTo + 1) * 1000 + 500).toISOString() });
    const refused = await put();
    const refusal = await refused.text();
    await ctx.verify('UP-22', () => {
      expectStatus(taken, 200, 'PUT of the part four seconds before its URL ends');
      expectStatus(refused, 403, 'PUT of the part past the end of its URL');
      expect(refusal, 'the 403 of an expired part URL: S3-style XML error').toMatch(
        /<Error>[\s\S]*<Code>AccessDenied<\/Code>/,
      );
    });
  },
);
