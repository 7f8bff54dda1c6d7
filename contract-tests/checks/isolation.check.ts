import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { completedSegmentation, openResumable } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import type { Image, Model, Share } from '../../openapi/generated/client/types.gen.js';

const ALLOWED_FOR_WRITES = [403, 404];

check(
  "another organization's image, prediction, segmentation and share answer 404 and leak nothing",
  { clauses: ['ISO-01'], needs: ['other'] },
  async (ctx) => {
    const other = ctx.other!;
    const { segmentationId, predictionId, imageId } = await completedSegmentation(ctx, presetTiff().bytes);
    const share = await ctx.api.call<Share>('createShare', {
      body: { segmentation_id: segmentationId },
    });
    ctx.cleanup.add(() =>
      ctx.api.call('revokeShare', { params: { share_id: share.body.id }, unvalidated: true }),
    );
    const uploading = await openResumable(ctx, 1000);
    const uploadingId = uploading.body.image.id;

    const reads: Array<[string, Record<string, string>]> = [
      ['getUpload', { image_id: imageId }],
      ['getImage', { image_id: imageId }],
      ['getPrediction', { prediction_id: predictionId }],
      ['exportMeasurementsCsv', { segmentation_id: segmentationId }],
      ['exportRoisGeojson', { segmentation_id: segmentationId }],
      ['exportRoisZip', { segmentation_id: segmentationId }],
      ['exportOverlayPng', { segmentation_id: segmentationId }],
      ['getShare', { share_id: share.body.id }],
    ];
    for (const [operationId, params] of reads) {
      const response = await other.call<{ detail: unknown }>(operationId, { params });
      expect(response.status, operationId).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain(imageId);
    }
    for (const operationId of ['completeUpload', 'abortUpload']) {
      expect(ALLOWED_FOR_WRITES, operationId).toContain(
        (await other.call(operationId, { params: { image_id: uploadingId } })).status,
      );
    }
    expect((await other.call('createShare', { body: { segmentation_id: segmentationId } })).status).toBe(404);
    expect((await other.call('revokeShare', { params: { share_id: share.body.id } })).status).toBe(404);
    expect((await other.call('deleteUpload', { params: { image_id: imageId } })).status).toBe(404);
    expect((await other.call('deleteImage', { params: { image_id: imageId } })).status).toBe(404);
    const models = await ctx.api.call<Model[]>('listModels');
    expect(
      (await other.call('createPrediction', { body: { image_id: imageId, model_id: models.body[0].id } }))
        .status,
    ).toBe(404);

    // nothing the other organization did changed anything
    expect(
      (await ctx.api.call<Image>('getUpload', { params: { image_id: imageId } })).body.upload_status,
    ).toBe('ready');
    expect(
      (await ctx.api.call<Image>('getUpload', { params: { image_id: uploadingId } })).body.upload_status,
    ).toBe('uploading');
    expect(
      (await ctx.api.call<Share>('getShare', { params: { share_id: share.body.id } })).body.revoked_at ??
        null,
    ).toBeNull();
  },
);

check(
  "another organization's custom models are not listed and answer 404 in predict",
  { clauses: ['ISO-02'], needs: ['other'] },
  async (ctx) => {
    const mine = await ctx.api.call<Model[]>('listModels');
    const theirs = await ctx.other!.call<Model[]>('listModels');
    const myCustom = mine.body.filter((m) => m.kind === 'custom');
    if (!myCustom.length) ctx.skip('the main organization has no custom model to test with');
    const theirIds = new Set(theirs.body.map((m) => m.id));
    for (const model of myCustom) expect(theirIds.has(model.id), model.id).toBe(false);
    const upload = await completedSegmentation(ctx, presetTiff().bytes, ctx.other!);
    ctx.cleanup.add(() =>
      ctx.other!.call('deleteImage', { params: { image_id: upload.imageId }, unvalidated: true }),
    );
    const response = await ctx.other!.call('createPrediction', {
      body: { image_id: upload.imageId, model_id: myCustom[0].id },
    });
    expect(response.status).toBe(404);
  },
);
