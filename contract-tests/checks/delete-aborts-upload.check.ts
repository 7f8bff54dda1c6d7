import { expect } from 'vitest';
import { check, type CheckContext } from '../harness/check.js';
import { openResumable, pollImage, putParts, trackImage } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { expectStatus, need } from '../harness/steps.js';
import type { CreatedImage, Image, UploadPlan } from '../../openapi/generated/client/types.gen.js';

/**
 * DELETE /upload/{id} "aborts any in-flight resumable upload first": after it, the part URLs the
 * plan handed out take no more bytes. Both ways of opening a plan (POST /upload with a JSON body,
 * POST /image with resumable) are deleted mid-upload, one part already sent, and every part URL is
 * sent again, then the upload completed. The oracle predicts each refusal too (model/images.ts, a
 * part URL after its delete, and any request on a deleted image).
 */
async function partsAfterDelete(
  ctx: CheckContext,
  id: string,
  plan: UploadPlan,
  opener: string,
): Promise<void> {
  expect(plan.urls.length, `${opener}: part URLs`).toBeGreaterThanOrEqual(1);
  const chunk = Buffer.alloc(Math.min(plan.part_size, 1000), 7);
  need(await ctx.api.raw('PUT', plan.urls[0].url, { body: chunk, key: null }), 200);
  need(await ctx.api.call('deleteUpload', { params: { image_id: id } }), 200);
  for (const { part_number, url } of plan.urls) {
    const late = await ctx.api.raw('PUT', url, { body: chunk, key: null });
    expect(
      late.status,
      `${opener}: PUT part ${part_number} after DELETE /upload/{id}`,
    ).toBeGreaterThanOrEqual(400);
    expect(late.status, `${opener}: PUT part ${part_number} after DELETE /upload/{id}`).toBeLessThan(500);
  }
  // the upload went with its image: the oracle predicts the 404 of a deleted image, never a 202
  // from an upload record the delete left behind
  await ctx.api.call('completeUpload', { params: { image_id: id } });
}

check(
  'DELETE /upload/{id} aborts an in-flight upload: its part URLs refuse bytes afterwards',
  { clauses: ['UP-09'] },
  async (ctx) => {
    const opened = need(await openResumable(ctx, 1000), 200, ['image.id', 'upload']);
    await partsAfterDelete(ctx, opened.body.image.id, opened.body.upload!, 'POST /upload');
    const created = await ctx.api.call<CreatedImage>('createImage', {
      body: { name: `${ctx.target.namePrefix}record.tif`, size: 1000, image_type: 'TIFF', resumable: true },
    });
    expectStatus(created, 200, 'create an image record with resumable: true');
    trackImage(ctx, ctx.api, created.body.id);
    await partsAfterDelete(ctx, created.body.id, created.body.upload!, 'POST /image');
  },
);

/** Opens a resumable upload of `bytes`, PUTs its parts and completes it: the image is then processing. */
async function completed(ctx: CheckContext, bytes: Buffer, name: string): Promise<string> {
  const opened = need(await openResumable(ctx, bytes.length, name), 200, ['image.id', 'upload.urls']);
  await putParts(ctx.api, opened.body.upload!, bytes);
  need(await ctx.api.call('completeUpload', { params: { image_id: opened.body.image.id } }), 202);
  return opened.body.image.id;
}

check(
  'DELETE /upload/{id} of an image still processing removes it for good: its conversion ending later does not bring it back',
  { clauses: ['UP-09'] },
  async (ctx) => {
    // "any" state is deleted: a conversion that ends after the delete must not write its image
    // back (the oracle predicts 404 on every read of a deleted image)
    const bytes = presetTiff('easy-8bit-256').bytes;
    const id = await completed(ctx, bytes, 'deleted-processing.tif');
    need(await ctx.api.call('deleteUpload', { params: { image_id: id } }), 200);
    expectStatus(
      await ctx.api.call('getUpload', { params: { image_id: id } }),
      404,
      'right after the delete',
    );
    // the same bytes completed after it: once they are converted, the deleted one's conversion
    // would have ended too
    const later = await completed(ctx, bytes, 'converted-after.tif');
    const done: Image = await pollImage(ctx, later);
    expect(done.upload_status, 'the upload completed after the delete: upload_status').toBe('ready');
    for (const read of ['getUpload', 'getImage'] as const)
      expectStatus(await ctx.api.call(read, { params: { image_id: id } }), 404, `${read} once converted`);
  },
);
