import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check } from '../harness/check.js';
import {
  completedSegmentation,
  openResumable,
  pollPrediction,
  putParts,
  uploadFile,
} from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { presetTiff } from '../harness/sample-images.js';
import { need } from '../harness/steps.js';
import type { CheckContext } from '../harness/check.js';
import type {
  Model,
  PredictionAck,
  Share,
  UploadResponse,
} from '../../openapi/generated/client/types.gen.js';

/**
 * Effects read back and paths driven for the oracle (contract-tests/model) to judge: the checks
 * here send the requests, the oracle predicts every answer from the earlier ones and fails the
 * check on a disagreement. Each waits only for the steps it needs (`need`).
 */

/** Either delete route removes what was derived from the image: both are driven. */
const DELETE_ROUTES = ['deleteImage', 'deleteUpload'] as const;

check(
  'the share of a deleted image, the page that showed its count, and a prediction asked of it (both delete routes)',
  { clauses: ['SHR-06', 'UP-10', 'UP-09', 'PRED-05'] },
  async (ctx) => {
    for (const route of DELETE_ROUTES) await deletedWithItsShare(ctx, route);
  },
);

async function deletedWithItsShare(ctx: CheckContext, route: (typeof DELETE_ROUTES)[number]): Promise<void> {
  const { segmentationId, imageId, predictionId } = await completedSegmentation(ctx, presetTiff().bytes);
  const params = { segmentation_id: segmentationId };
  // each read once before the delete, so a read served from a cache the delete forgot shows
  need(await ctx.api.call('getImage', { params: { image_id: imageId } }), 200);
  need(await ctx.api.call('getPrediction', { params: { prediction_id: predictionId } }), 200);
  const csv = need(await ctx.api.call('exportMeasurementsCsv', { params }), 200);
  const etag = csv.headers.get('etag');
  const share = need(
    await ctx.api.call<Share>('createShare', { body: { segmentation_id: segmentationId } }),
    200,
    ['url'],
  ).body;
  for (let view = 0; view < 2; view++) {
    need(await ctx.api.raw('GET', share.url!, { key: null }), 200);
    need(await ctx.api.call('getShare', { params: { share_id: share.id } }), 200);
  }
  need(await ctx.api.call(route, { params: { image_id: imageId } }), 200);
  await ctx.api.call('getImage', { params: { image_id: imageId } });
  await ctx.api.call('getPrediction', { params: { prediction_id: predictionId } });
  await ctx.api.call('getShare', { params: { share_id: share.id } });
  await ctx.api.raw('GET', share.url!, { key: null });
  await ctx.api.call('createShare', { body: { segmentation_id: segmentationId } });
  await ctx.api.call('exportMeasurementsCsv', { params });
  // the validator held from before the delete names no file any more: 404, never a 304 from a
  // cache of validators the delete left behind
  if (etag) await ctx.api.call('exportMeasurementsCsv', { params, headers: { 'if-none-match': etag } });
  // a deleted image is missing to predict too: 404, never a run that starts and then fails
  await ctx.api.call('createPrediction', {
    body: { image_id: imageId, model_id: await fittingModelId(ctx.api) },
  });
}

check(
  "a 404 for another organization's id says nothing a missing id's does not",
  { clauses: ['ISO-01'], needs: ['other'] },
  async (ctx) => {
    const other = ctx.other!;
    const { segmentationId, imageId, predictionId } = await completedSegmentation(ctx, presetTiff().bytes);
    const share = need(
      await ctx.api.call<Share>('createShare', { body: { segmentation_id: segmentationId } }),
      200,
    ).body;
    const asks: Array<[string, string, string]> = [
      ['getUpload', 'image_id', imageId],
      ['getImage', 'image_id', imageId],
      ['deleteImage', 'image_id', imageId],
      ['getPrediction', 'prediction_id', predictionId],
      ['exportMeasurementsCsv', 'segmentation_id', segmentationId],
      ['exportRoisGeojson', 'segmentation_id', segmentationId],
      ['getShare', 'share_id', share.id],
      ['revokeShare', 'share_id', share.id],
    ];
    for (const [operationId, param, id] of asks) {
      await other.call(operationId, { params: { [param]: randomUUID() } });
      await other.call(operationId, { params: { [param]: id } });
    }
  },
);

check(
  'a part URL after complete, abort or delete takes no more parts',
  { clauses: ['UP-05', 'UP-09'] },
  async (ctx) => {
    const bytes = presetTiff().bytes;
    for (const close of ['completeUpload', 'abortUpload', 'deleteUpload'] as const) {
      const opened = need(await openResumable(ctx, bytes.length, `closed-${close}.tif`), 200, ['upload']);
      const plan = (opened.body as UploadResponse).upload!;
      await putParts(ctx.api, plan, bytes);
      need(await ctx.api.call(close, { params: { image_id: opened.body.image.id } }), [200, 202]);
      await ctx.api.raw('PUT', plan.urls[0].url, { body: bytes.subarray(0, plan.part_size), key: null });
    }
  },
);

check(
  'the exports of one segmentation name the same cells, in the charset they declare, each time alike, and offer the file under the image name',
  { clauses: ['EXP-01', 'EXP-04', 'EXP-05', 'EXP-08'] },
  async (ctx) => {
    // a name outside ASCII, so a CSV whose declared charset is not its bytes' reads back otherwise,
    // and an attachment offered only under a quoted name with its letters replaced shows (EXP-08,
    // the oracle's); with a comma, so a cell not quoted splits its row
    const uploaded = need(await uploadFile(ctx, presetTiff().bytes, 'Zellkerne, µ-ü.tif'), 200);
    const imageId = uploaded.body.image.id;
    const models = need(await ctx.api.call<Model[]>('listModels'), 200).body;
    const ack = need(
      await ctx.api.call<PredictionAck>('createPrediction', {
        body: { image_id: imageId, model_id: await fittingModelId(ctx.api) },
      }),
      200,
    );
    expect(models.length, 'models listed').toBeGreaterThan(0);
    const done = await pollPrediction(ctx, ack.body.prediction_id);
    expect(done.status, 'the prediction').toBe('COMPLETED');
    const params = { segmentation_id: done.segmentation_id! };
    // each file asked for twice (a second click, a retry): the oracle holds every answer to the
    // prediction's cells, so a file served once and empty after shows
    for (const operationId of [
      'exportRoisGeojson',
      'exportMeasurementsCsv',
      'exportRoisZip',
      'exportMeasurementsCsv',
      'exportRoisZip',
      'exportRoisGeojson',
    ])
      need(await ctx.api.call(operationId, { params }), 200);
    need(
      await ctx.api.call('exportMeasurementsCsv', {
        params,
        query: { columns: ['roi_id', 'area_px', 'image_name'] },
      }),
      200,
    );
    need(await ctx.api.call('listModels'), 200);
    // the overlay at full size, then capped: the oracle predicts the capped one's size from the first
    need(await ctx.api.call('exportOverlayPng', { params }), 200);
    need(await ctx.api.call('exportOverlayPng', { params, query: { max_size: 64 } }), 200);
    // a validator that names no version of the file: the file again, never 304
    need(
      await ctx.api.call('exportMeasurementsCsv', { params, headers: { 'if-none-match': '"not-this-one"' } }),
      [200, 304],
    );
  },
);
