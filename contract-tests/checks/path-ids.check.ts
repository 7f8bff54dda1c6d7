import { expect } from 'vitest';
import { check, type CheckContext } from '../harness/check.js';
import { expectStatus, need } from '../harness/steps.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { pathIdDetailClause } from '../harness/validation-items.js';
import {
  openResumable,
  pollPrediction,
  predictedSegmentation,
  readyImage,
  trackSharesMade,
} from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { presetTiff } from '../harness/sample-images.js';
import type { PredictionAck, Share } from '../../openapi/generated/client/types.gen.js';

/** Every operation of the document that takes a UUID in its path, found by reading the document. */
const contract = sharedContract();
const withPathIds = [...contract.operations.values()].filter(
  (op) =>
    op.secured &&
    op.pathParams.length > 0 &&
    !op.tags.includes('internal') &&
    !op.tags.includes('mock-control'),
);

for (const op of withPathIds) {
  check(
    `${op.operationId}: a non-UUID path id answers 422 in the documented shape`,
    { clauses: ['VAL-01', pathIdDetailClause(op.validationStyle)] },
    async ({ api }) => {
      const params = Object.fromEntries(op.pathParams.map((name) => [name, 'not-a-uuid']));
      const response = await api.call(op.operationId, {
        params,
        body: op.requestContentTypes.includes('application/json') ? {} : undefined,
      });
      expectStatus(response, 422, `${op.pathParams[0]} 'not-a-uuid'`);
      const detail = (response.body as { detail: unknown }).detail;
      const what = `${op.operationId} 422: detail`;
      if (pathIdDetailClause(op.validationStyle) === 'VAL-03') {
        expect(typeof detail, `${what}, its type`).toBe('string');
        expect(detail, `${what} names the value sent`).toContain('not-a-uuid');
      } else {
        expect(detail, `${what}, an array of items (${JSON.stringify(detail)})`).toBeInstanceOf(Array);
        const item = (detail as Array<{ loc: string[]; type: string; input: unknown }>)[0];
        expect(item?.loc, `${what}[0].loc`).toEqual(['path', op.pathParams[0]]);
        expect(item?.input, `${what}[0].input`).toBe('not-a-uuid');
      }
    },
  );
}

check(
  'a path or body id in upper case or in its urn:uuid: form names the same image, model, prediction, segmentation and share; an id of another kind names none',
  { clauses: ['VAL-06', 'ERR-05'] },
  async (ctx) => {
    // the oracle judges each answer as the canonical id's: the same resource, the same state
    const up = (id: string) => id.toUpperCase();
    const urn = (id: string) => `urn:uuid:${id}`;
    const imageId = await readyImage(ctx, presetTiff().bytes);
    // body ids too: the check's one prediction names its image in upper case under the urn:uuid:
    // prefix and its model in upper case (a real target counts each analysis), judged by the
    // oracle; when that run does not complete, a lower-case one stands in (a second analysis only
    // on a broken target) so the path reads below are still judged
    const modelId = await fittingModelId(ctx.api);
    const { segmentationId, predictionId } =
      (await upperCasePrediction(ctx, urn(up(imageId)), up(modelId))) ??
      (await predictedSegmentation(ctx, imageId, modelId, ctx.api));
    const share = need(
      await ctx.api.call<Share>('createShare', { body: { segmentation_id: segmentationId } }),
      200,
    ).body;
    // the same share on a target that reads the ids as the canonical one; any other is revoked too
    for (const spelled of [up(segmentationId), urn(segmentationId)])
      trackSharesMade(
        ctx,
        [await ctx.api.call<Share>('createShare', { body: { segmentation_id: spelled } })],
        segmentationId,
      );
    for (const [operationId, params] of [
      ['getUpload', { image_id: up(imageId) }],
      ['getImage', { image_id: urn(imageId) }],
      ['getPrediction', { prediction_id: up(predictionId) }],
      ['getPrediction', { prediction_id: urn(predictionId) }],
      ['exportRoisGeojson', { segmentation_id: up(segmentationId) }],
      ['exportRoisGeojson', { segmentation_id: urn(segmentationId) }],
      ['getShare', { share_id: urn(share.id) }],
    ] as const)
      await ctx.api.call(operationId, { params });
    await ctx.verify('ERR-05', () =>
      otherKindsRead(ctx, {
        image: imageId,
        prediction: predictionId,
        segmentation: segmentationId,
        share: share.id,
      }),
    );
    await ctx.api.call('revokeShare', { params: { share_id: up(share.id) } });
    // an upload still open: abort and delete reach it by its id in upper case too
    const opened = need(await openResumable(ctx, 1000, 'upper-case-id.tif'), 200, ['image.id']);
    const openId = opened.body.image.id;
    await ctx.api.call('abortUpload', { params: { image_id: up(openId) } });
    await ctx.api.call('deleteUpload', { params: { image_id: urn(openId) } });
    await ctx.api.call('getUpload', { params: { image_id: openId } });
    await ctx.api.call('deleteImage', { params: { image_id: up(imageId) } });
    await ctx.api.call('getImage', { params: { image_id: imageId } });
  },
);

/**
 * Each of the caller's own ids asked on a route of another kind (a segmentation's or an image's id
 * as a prediction's, a prediction's as a segmentation's, and so on): "404 | resource missing". Reads
 * and a share's creation only, so a target whose lookup crosses kinds changes nothing of the
 * organization's; the oracle judges each answer too.
 */
async function otherKindsRead(
  ctx: CheckContext,
  ids: { image: string; prediction: string; segmentation: string; share: string },
): Promise<void> {
  const asked = [
    ['getPrediction', { prediction_id: ids.segmentation }],
    ['getPrediction', { prediction_id: ids.image }],
    ['getUpload', { image_id: ids.prediction }],
    ['getImage', { image_id: ids.segmentation }],
    ['exportMeasurementsCsv', { segmentation_id: ids.prediction }],
    ['exportRoisGeojson', { segmentation_id: ids.image }],
    ['getShare', { share_id: ids.segmentation }],
  ] as const;
  const statuses: string[] = [];
  for (const [operationId, params] of asked)
    statuses.push(
      `${operationId} ${Object.values(params)[0]}: ${(await ctx.api.call(operationId, { params })).status}`,
    );
  const shared = await ctx.api.call<Share>('createShare', { body: { segmentation_id: ids.prediction } });
  // a share a crossed lookup made is a live public link: revoked at the end (the guard reads it first)
  trackSharesMade(ctx, [shared], ids.prediction);
  statuses.push(`createShare of ${ids.prediction}: ${shared.status}`);
  expect(statuses, "the caller's own ids asked as ids of another kind").toEqual([
    ...asked.map(([operationId, params]) => `${operationId} ${Object.values(params)[0]}: 404`),
    `createShare of ${ids.prediction}: 404`,
  ]);
}

/** The upper-case ids' prediction, its segmentation when it completed; undefined otherwise. */
async function upperCasePrediction(ctx: CheckContext, imageId: string, modelId: string) {
  const ack = await ctx.api.call<PredictionAck>('createPrediction', {
    body: { image_id: imageId, model_id: modelId },
  });
  if (ack.status !== 200 || typeof ack.body?.prediction_id !== 'string') return undefined;
  const done = await pollPrediction(ctx, ack.body.prediction_id);
  if (done.status !== 'COMPLETED' || !done.segmentation_id) return undefined;
  return { segmentationId: done.segmentation_id, predictionId: done.prediction_id };
}
