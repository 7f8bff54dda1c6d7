import { expect } from 'vitest';
import { check, type CheckContext } from '../harness/check.js';
import { openResumable, pollImage, pollPrediction, putParts, trackShare } from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { presetTiff } from '../harness/sample-images.js';
import { BlockedByStep, need } from '../harness/steps.js';
import type { Image, Prediction, PredictionAck } from '../../openapi/generated/client/types.gen.js';

check(
  'fields that must not change between reads do not: image, prediction and share',
  { clauses: ['STB-01'] },
  async (ctx) => {
    const imageId = await imageFieldsStayPut(ctx);
    const done = await predictionFieldsStayPut(ctx, imageId);
    await shareFieldsStayPut(ctx, done);
  },
);

/** An image's fixed fields read the same from opening its upload to reading it ready; answers its id. */
async function imageFieldsStayPut(ctx: CheckContext): Promise<string> {
  const bytes = presetTiff('easy-8bit-256').bytes;
  const opened = need(await openResumable(ctx, bytes.length), 200, ['image.id', 'upload.urls']);
  const id = opened.body.image.id;
  const imageFields = (image: Image & Record<string, unknown>) =>
    Object.fromEntries(['id', 'name', 'size', 'image_type', 'created_at'].map((k) => [k, image[k]]));
  const reads: Array<Record<string, unknown>> = [
    imageFields(opened.body.image as Image & Record<string, unknown>),
  ];
  await putParts(ctx.api, opened.body.upload!, bytes);
  reads.push(
    imageFields(
      need(
        await ctx.api.call<Image & Record<string, unknown>>('getUpload', { params: { image_id: id } }),
        200,
      ).body,
    ),
  );
  need(await ctx.api.call('completeUpload', { params: { image_id: id } }), 202);
  const ready = (await pollImage(ctx, id)) as Image & Record<string, unknown>;
  reads.push(imageFields(ready));
  const again = need(
    await ctx.api.call<Image & Record<string, unknown>>('getImage', { params: { image_id: id } }),
    200,
  ).body;
  reads.push(imageFields(again));
  await ctx.verify('STB-01', () => {
    for (const read of reads.slice(1)) expect(read, 'image across reads').toEqual(reads[0]);
    expect(again.shape, 'shape once ready').toEqual(ready.shape);
    expect(again.processed_at, 'processed_at once ready').toEqual(ready.processed_at);
  });
  return id;
}

/** A prediction's fixed fields read the same while it runs and once it ends; answers its last read. */
async function predictionFieldsStayPut(
  ctx: CheckContext,
  id: string,
): Promise<Prediction & Record<string, unknown>> {
  const modelId = await fittingModelId(ctx.api);
  const ack = need(
    await ctx.api.call<PredictionAck>('createPrediction', {
      body: { image_id: id, model_id: modelId },
    }),
    200,
    ['prediction_id'],
  );
  const predictionFields = (p: Prediction & Record<string, unknown>) =>
    Object.fromEntries(['prediction_id', 'image_id', 'model_id', 'created_at'].map((k) => [k, p[k]]));
  const first = need(
    await ctx.api.call<Prediction & Record<string, unknown>>('getPrediction', {
      params: { prediction_id: ack.body.prediction_id },
    }),
    200,
  ).body;
  const done = (await pollPrediction(ctx, ack.body.prediction_id)) as Prediction & Record<string, unknown>;
  const reread = need(
    await ctx.api.call<Prediction & Record<string, unknown>>('getPrediction', {
      params: { prediction_id: ack.body.prediction_id },
    }),
    200,
  ).body;
  await ctx.verify('STB-01', () => {
    expect(predictionFields(done), 'prediction across polls').toEqual(predictionFields(first));
    expect(predictionFields(reread), 'prediction after completion').toEqual(predictionFields(first));
    expect(first, 'GET /predict/{id}: the image and model predicted').toMatchObject({
      image_id: id,
      model_id: modelId,
    });
    expect([reread.segmentation_id, reread.cell_count], 'result once COMPLETED').toEqual([
      done.segmentation_id,
      done.cell_count,
    ]);
  });
  return done;
}

/** A share's fixed fields read the same when made, read and revoked. */
async function shareFieldsStayPut(ctx: CheckContext, done: Prediction): Promise<void> {
  if (done.status !== 'COMPLETED')
    throw new BlockedByStep(
      {
        key: `getPrediction ended ${done.status}`,
        text: `GET /api/v1/predict/{prediction_id} (getPrediction) ended ${done.status}`,
      },
      ', expected COMPLETED',
    );
  const share = need(
    await ctx.api.call<Record<string, unknown> & { id: string }>('createShare', {
      body: { segmentation_id: done.segmentation_id },
    }),
    200,
    ['id'],
  );
  trackShare(ctx, share.body.id, done.segmentation_id!);
  const shareFields = (s: Record<string, unknown>) =>
    Object.fromEntries(
      ['id', 'segmentation_id', 'url', 'created_at', 'access', 'role'].map((k) => [k, s[k]]),
    );
  const shareRead = need(
    await ctx.api.call<Record<string, unknown>>('getShare', { params: { share_id: share.body.id } }),
    200,
  ).body;
  const revoked = await ctx.api.call<Record<string, unknown>>('revokeShare', {
    params: { share_id: share.body.id },
  });
  const afterRevoke = need(
    await ctx.api.call<Record<string, unknown>>('getShare', { params: { share_id: share.body.id } }),
    200,
  ).body;
  await ctx.verify('STB-01', () => {
    expect(shareFields(shareRead), 'share on read').toEqual(shareFields(share.body));
    expect(shareFields(afterRevoke), 'share after revoke').toEqual(shareFields(share.body));
    if (revoked.status === 200)
      expect(afterRevoke.revoked_at, 'revoked_at read back').toEqual(revoked.body.revoked_at);
  });
}
