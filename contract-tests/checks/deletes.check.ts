import { expect } from 'vitest';
import { check, type CheckContext } from '../harness/check.js';
import {
  predictedSegmentation,
  secondSegmentation,
  sentAtOnce,
  trackShare,
  uploadFile,
  type CompletedSegmentation,
} from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { presetTiff } from '../harness/sample-images.js';
import { need } from '../harness/steps.js';
import type { PredictionAck, Share } from '../../openapi/generated/client/types.gen.js';

/**
 * What a delete takes and what it leaves, in one state built once and judged by the oracle
 * (contract-tests/model) on every answer after the delete: the image deleted has two completed
 * runs (the earlier one shared, its page and preview opened) and a third still in flight when the
 * delete comes; another image of the same name has a run of its own. Afterwards every run of the
 * deleted image, its exports, its share, page and preview answer as gone, while the other image,
 * its run and its exports answer as before: derived storage kept by name, a cascade through the
 * latest run alone, a run finishing after its image went or a preview cached apart from its page
 * all show here.
 */

const EXPORTS = ['exportMeasurementsCsv', 'exportRoisGeojson', 'exportRoisZip', 'exportOverlayPng'];
const shareToken = (url: string) => url.split('/').pop()!;

/** Two images uploaded under one name, each ready. */
async function twoOfOneName(ctx: CheckContext): Promise<[string, string]> {
  const bytes = presetTiff().bytes;
  const upload = async () =>
    need(await uploadFile(ctx, bytes, 'same-name.tif'), 200, ['image.id'], { 'image.upload_status': 'ready' })
      .body.image.id;
  return [await upload(), await upload()];
}

/** Each run's prediction and the exports named of its segmentation: the oracle predicts each answer. */
async function readAll(ctx: CheckContext, runs: CompletedSegmentation[], exports = EXPORTS): Promise<void> {
  for (const run of runs) {
    await ctx.api.call('getPrediction', { params: { prediction_id: run.predictionId } });
    for (const operationId of exports)
      await ctx.api.call(operationId, { params: { segmentation_id: run.segmentationId } });
  }
}

/** The share's record, its page and the page's preview image. */
async function openShare(ctx: CheckContext, share: Share): Promise<void> {
  await ctx.api.call('getShare', { params: { share_id: share.id } });
  await ctx.api.raw('GET', share.url!, { key: null });
  await ctx.api.call('viewShareImage', { params: { share_token: shareToken(share.url!) }, key: null });
}

check(
  'a delete takes every run of its image (earlier, latest, in flight), its share and preview, and nothing of another image of the same name',
  { clauses: ['UP-09', 'SHR-06'] },
  async (ctx) => {
    const [goneId, keptId] = await twoOfOneName(ctx);
    const model = await fittingModelId(ctx.api);
    const started = Date.now();
    const [earlier, kept] = await Promise.all([
      predictedSegmentation(ctx, goneId, model, ctx.api),
      predictedSegmentation(ctx, keptId, model, ctx.api),
    ]);
    const runMs = Date.now() - started;
    // another model's run when one completes (a model may fairly fail on the sample): the
    // earlier run is then not the image's only completed one
    const later = await secondSegmentation(ctx, earlier);
    const runs = later ? [earlier, later] : [earlier];
    const share = need(
      await ctx.api.call<Share>('createShare', { body: { segmentation_id: earlier.segmentationId } }),
      200,
      ['id', 'url'],
    ).body;
    trackShare(ctx, share.id, earlier.segmentationId);
    // read before the delete (the text exports, the cheap ones), so an answer served from what a
    // read left behind shows; after it, every export
    await readAll(ctx, [...runs, kept], EXPORTS.slice(0, 2));
    await openShare(ctx, share);
    const runningSince = Date.now();
    const running = need(
      await ctx.api.call<PredictionAck>('createPrediction', { body: { image_id: goneId, model_id: model } }),
      200,
      ['prediction_id'],
    ).body.prediction_id;
    need(await ctx.api.call('deleteUpload', { params: { image_id: goneId } }), 200);
    await readAll(ctx, [...runs, kept]);
    await openShare(ctx, share);
    await ctx.api.call('getImage', { params: { image_id: keptId } });
    // the run in flight at the delete, once it has had twice as long as the first two runs took
    // (within the poll timeout), still answers as gone: waited for by time, not by another
    // analysis (the other image's overlay, read above, already shows its source kept)
    const end = runningSince + Math.min(2 * runMs, ctx.target.pollTimeoutMs);
    await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now())));
    await ctx.api.call('getPrediction', { params: { prediction_id: running } });
  },
);

check(
  'two deletes of one image sent at once: one removes it, the other answers 404',
  { clauses: ['UP-09', 'UP-10'] },
  async (ctx) => {
    // "404 | resource missing": whichever delete the target takes first removes the image, and
    // the other finds it gone (the oracle, model/overlap.ts, judges the pair in either order);
    // each delete route, on an image of its own
    const bytes = presetTiff().bytes;
    for (const operationId of ['deleteUpload', 'deleteImage'] as const) {
      const image = need(await uploadFile(ctx, bytes, `deleted-at-once-${operationId}.tif`), 200, [
        'image.id',
      ]).body.image.id;
      const params = { image_id: image };
      const answers = await sentAtOnce(ctx.api, 2, () => ctx.api.call(operationId, { params }));
      expect(
        answers.map((answer) => (answer.status === 204 ? 200 : answer.status)).sort(),
        `${operationId} of one image twice at once: statuses`,
      ).toEqual([200, 404]);
    }
  },
);
