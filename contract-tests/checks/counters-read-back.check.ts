import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { openResumable, pollPrediction, readyImage } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { fittingModelId } from '../harness/model-choice.js';
import { need } from '../harness/steps.js';
import type { Model, PredictionAck } from '../../openapi/generated/client/types.gen.js';

/**
 * A throw-away organization's counters read back after the calls that move them, and the
 * identical-in-flight rule driven beside another model, for the oracle (contract-tests/model) to
 * judge: the checks send the requests, the oracle predicts every answer from the earlier ones.
 */

check(
  "an organization's counters after each delete route and after a FAILED prediction, which keeps its place in the analysis cap, its image deleted too",
  { clauses: ['CAP-07', 'CAP-06'], requires: ['control'] },
  async (ctx) => {
    const org = await throwawayOrganization(ctx, 'read-back', {
      storage_cap_images: 5,
      monthly_analysis_cap: 1,
    });
    const bytes = presetTiff().bytes;
    const first = await readyImage(ctx, bytes, org.client);
    const second = await readyImage(ctx, bytes, org.client);
    await org.usage(); // two images, judged by the oracle
    need(await org.client.call('deleteUpload', { params: { image_id: first } }), 200);
    await org.usage();
    need(await org.client.call('deleteImage', { params: { image_id: second } }), 200);
    await org.usage();
    const opened = need(await openResumable(ctx, 1000, 'aborted.tif', org.client), 200);
    need(await org.client.call('abortUpload', { params: { image_id: opened.body.image.id } }), 200);
    await org.usage(); // an aborted image still counts
    need(
      await ctx.api.call('mockForceOutcome', {
        key: ctx.target.adminToken ?? null,
        baseUrl: ctx.target.directBaseUrl,
        body: { organization_id: org.id, status: 'FAILED', error: 'forced failure' },
      }),
      200,
    );
    const third = await readyImage(ctx, bytes, org.client);
    const models = need(await org.client.call<Model[]>('listModels'), 200).body;
    const predict = () =>
      org.client.call<PredictionAck>('createPrediction', {
        body: { image_id: third, model_id: models[0].id },
      });
    const ack = need(await predict(), 200);
    const done = await pollPrediction(ctx, ack.body.prediction_id, org.client);
    expect(done.status, 'the forced outcome').toBe('FAILED');
    await org.usage(); // a failed prediction still counted
    // each prediction counts, a failed one too: the cap of one is reached (the oracle predicts the 402)
    need(await predict(), 402);
    await org.usage();
    // deleting the image the month's analysis ran on gives no analysis back: the count stays, and
    // another image is still refused (the oracle predicts both)
    need(await org.client.call('deleteImage', { params: { image_id: third } }), 200);
    await org.usage();
    const fourth = await readyImage(ctx, bytes, org.client);
    await org.client.call('createPrediction', { body: { image_id: fourth, model_id: models[0].id } });
    await org.usage();
  },
);

check(
  'a prediction of another model on an image with one in flight is a fresh run',
  { clauses: ['PRED-07'], requires: ['control'] },
  async (ctx) => {
    const org = await throwawayOrganization(ctx, 'in-flight', {
      storage_cap_images: 5,
      monthly_analysis_cap: 5,
    });
    await org.progress({ start_delay_ms: 0, run_delay_ms: 0, complete_after_polls: 2 });
    const image = await readyImage(ctx, presetTiff().bytes, org.client);
    const models = need(await org.client.call<Model[]>('listModels'), 200).body;
    expect(models.length, 'models listed').toBeGreaterThan(1);
    const predict = (model: Model) =>
      org.client.call<PredictionAck>('createPrediction', { body: { image_id: image, model_id: model.id } });
    const first = need(await predict(models[0]), 200);
    need(await predict(models[1]), 200);
    need(await predict(models[0]), 200);
    await pollPrediction(ctx, first.body.prediction_id, org.client);
    need(await predict(models[0]), 200); // the first finished: a fresh run again
    await org.usage();
  },
);

check(
  "a custom model added to an organization and predicted with, and a raised plan lifting its analysis cap's 402",
  { clauses: ['MOD-01', 'CAP-06'], requires: ['control'] },
  async (ctx) => {
    const org = await throwawayOrganization(ctx, 'custom-and-raise', {
      storage_cap_images: 5,
      monthly_analysis_cap: 1,
    });
    const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
    need(await org.client.call('listModels'), 200); // base models only: nothing trained yet
    const custom = need(
      await ctx.api.call<Model>('mockCreateModel', {
        ...admin,
        params: { organization_id: org.id },
        body: { name: `${ctx.target.namePrefix}custom-nuclei`, engine: 'threshold' },
      }),
      200,
      ['id'],
    ).body.id;
    need(await org.client.call('listModels'), 200); // the oracle: the custom model listed, as custom
    need(await org.client.call('listModels'), 200);
    const image = await readyImage(ctx, presetTiff().bytes, org.client);
    const modelId = await fittingModelId(org.client);
    const predict = (model = modelId) =>
      org.client.call<PredictionAck>('createPrediction', { body: { image_id: image, model_id: model } });
    // the oracle: the prediction reads back the custom model it was started with, on every poll
    const first = need(await predict(custom), 200);
    await pollPrediction(ctx, first.body.prediction_id, org.client);
    need(await predict(), 402); // the cap of one reached
    need(
      await ctx.api.call('mockSetPlan', {
        ...admin,
        params: { organization_id: org.id },
        body: { name: 'raised', storage_cap_images: 5, monthly_analysis_cap: 3 },
      }),
      200,
    );
    const lifted = need(await predict(), 200); // the oracle: under the raised cap, a fresh run
    await pollPrediction(ctx, lifted.body.prediction_id, org.client);
    await org.usage();
  },
);
