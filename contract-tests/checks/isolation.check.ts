import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { expectStatus, need } from '../harness/steps.js';
import { completedSegmentation, openResumable, trackShare } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import type { Image, Model, Share } from '../../openapi/generated/client/types.gen.js';

const ALLOWED_FOR_WRITES = [403, 404];

check(
  "another organization's image, prediction, segmentation and share answer 404 and leak nothing",
  { clauses: ['ISO-01'], needs: ['other'] },
  async (ctx) => {
    const other = ctx.other!;
    const { segmentationId, predictionId, imageId } = await completedSegmentation(ctx, presetTiff().bytes);
    const share = need(
      await ctx.api.call<Share>('createShare', {
        body: { segmentation_id: segmentationId },
      }),
      200,
      ['id'],
    );
    trackShare(ctx, share.body.id, segmentationId);
    const uploading = need(await openResumable(ctx, 1000), 200, ['image.id']);
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
      expectStatus(response, 404, "another organization's read");
      expect(JSON.stringify(response.body), `${operationId} 404: names the image id`).not.toContain(imageId);
    }
    // asked with the ETag the owner was given: a conditional request is no less a read of the
    // file, so the oracle predicts 404, never a 304 telling another organization it exists
    for (const [operationId, params] of reads.filter(([op]) => op.startsWith('export'))) {
      const etag = need(await ctx.api.call(operationId, { params }), 200).headers.get('etag');
      if (etag) await other.call(operationId, { params, headers: { 'if-none-match': etag } });
    }
    for (const operationId of ['completeUpload', 'abortUpload']) {
      expectStatus(
        await other.call(operationId, { params: { image_id: uploadingId } }),
        ALLOWED_FOR_WRITES,
        "another organization's write",
      );
    }
    expectStatus(await other.call('createShare', { body: { segmentation_id: segmentationId } }), 404);
    expectStatus(await other.call('revokeShare', { params: { share_id: share.body.id } }), 404);
    expectStatus(await other.call('deleteUpload', { params: { image_id: imageId } }), 404);
    expectStatus(await other.call('deleteImage', { params: { image_id: imageId } }), 404);
    const models = need(await ctx.api.call<Model[]>('listModels'), 200, ['0.id']);
    expectStatus(
      await other.call('createPrediction', { body: { image_id: imageId, model_id: models.body[0].id } }),
      404,
      "predict on another organization's image",
    );

    // nothing the other organization did changed anything
    const read = async <T>(operationId: string, params: Record<string, string>) =>
      need(await ctx.api.call<T>(operationId, { params }), 200).body;
    expect(
      (await read<Image>('getUpload', { image_id: imageId })).upload_status,
      "GET /upload/{id} after another organization's calls: upload_status of the ready image",
    ).toBe('ready');
    expect(
      (await read<Image>('getUpload', { image_id: uploadingId })).upload_status,
      "GET /upload/{id} after another organization's calls: upload_status of the open upload",
    ).toBe('uploading');
    expect(
      (await read<Share>('getShare', { share_id: share.body.id })).revoked_at ?? null,
      "GET /shares/{id} after another organization's revoke: revoked_at",
    ).toBeNull();
  },
);

check(
  "another organization's custom models are not listed and answer 404 in predict",
  { clauses: ['ISO-02'], needs: ['other'] },
  async (ctx) => {
    const mine = need(await ctx.api.call<Model[]>('listModels'), 200);
    const theirs = need(await ctx.other!.call<Model[]>('listModels'), 200);
    const myCustom = mine.body.filter((m) => m.kind === 'custom');
    if (!myCustom.length) ctx.skip('the main organization has no custom model to test with');
    const theirIds = new Set(theirs.body.map((m) => m.id));
    for (const model of myCustom)
      expect([...theirIds], `GET /models of the other organization lists our custom model`).not.toContain(
        model.id,
      );
    // nor anything that names or describes one of ours, under any id
    const theirWords = new Set(theirs.body.flatMap((m) => [m.name, m.description].filter(Boolean)));
    for (const model of myCustom)
      for (const word of [model.name, model.description].filter(Boolean))
        expect(
          theirWords.has(word!),
          `GET /models of the other organization holds our custom model ${model.id}'s ${word === model.name ? 'name' : 'description'} ${JSON.stringify(word)}`,
        ).toBe(false);
    // the base models are shared: both organizations read the same record of each
    const theirsById = new Map(theirs.body.map((m) => [m.id, m]));
    for (const model of mine.body.filter((m) => m.kind === 'base'))
      if (theirsById.has(model.id))
        expect(theirsById.get(model.id), `base model ${model.id} as the other organization reads it`).toEqual(
          model,
        );
    // deleted at the end by its own organization's key, as every image the run makes
    const upload = await completedSegmentation(ctx, presetTiff().bytes, ctx.other!);
    const response = await ctx.other!.call('createPrediction', {
      body: { image_id: upload.imageId, model_id: myCustom[0].id },
    });
    expectStatus(response, 404, "predict with another organization's custom model");
  },
);
