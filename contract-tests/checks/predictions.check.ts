import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check, type CheckContext } from '../harness/check.js';
import type { ApiClient } from '../harness/api-client.js';
import { expectStatus, need } from '../harness/steps.js';
import {
  openResumable,
  pollPrediction,
  predicted,
  readyImage,
  sentAtOnce,
  type PredictionAsRead,
} from '../harness/flows.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { fittingModelId } from '../harness/model-choice.js';
import { flatTiff, presetTiff } from '../harness/sample-images.js';
import { nearOf } from './stateful/arguments.js';
import type { Model, PredictionAck } from '../../openapi/generated/client/types.gen.js';

check('GET /models lists models with id, name and kind', { clauses: ['MOD-01'] }, async ({ api }) => {
  const response = await api.call<Model[]>('listModels');
  expectStatus(response, 200);
  expect(response.body.length, 'GET /models: number of models').toBeGreaterThan(0);
  expect(
    response.body.map((m) => m.kind),
    'GET /models: the kinds listed include a base model',
  ).toContain('base');
  expect(new Set(response.body.map((m) => m.id)).size, 'GET /models: distinct ids').toBe(
    response.body.length,
  );
  // The document's choice where the interface shows no order ("the models, base models first"):
  // judged here, under this assumed clause alone, so a target that orders them otherwise fails
  // only it, not every check that reads the list.
  const kinds = response.body.map((m) => m.kind);
  expect(kinds, 'GET /models: base models first (document, assumed)').toEqual(
    [...kinds].sort((a, b) => Number(a !== 'base') - Number(b !== 'base')),
  );
});

check(
  'a prediction is acknowledged at once and reaches COMPLETED with segmentation_id and cell_count',
  { clauses: ['PRED-01', 'PRED-02', 'PRED-03', 'PRED-08'] },
  async (ctx) => {
    const sample = presetTiff('easy-8bit-256');
    const imageId = await readyImage(ctx, sample.bytes);
    const modelId = await fittingModelId(ctx.api);
    const ack = await ctx.api.call<PredictionAck>('createPrediction', {
      body: { image_id: imageId, model_id: modelId },
    });
    expectStatus(ack, 200);
    expect(ack.body.status, 'POST /predict: status').toBe('submitted');
    const first = need(
      await ctx.api.call<PredictionAsRead>('getPrediction', {
        params: { prediction_id: ack.body.prediction_id },
      }),
      200,
    );
    expect(['SUBMITTED', 'STARTED', 'COMPLETED', 'FAILED'], 'GET /predict/{id}: status').toContain(
      first.body.status,
    );
    if (first.body.status !== 'COMPLETED') {
      expect(
        first.body.segmentation_id,
        `GET /predict/{id} ${first.body.status}: segmentation_id`,
      ).toBeUndefined();
      expect(first.body.cell_count, `GET /predict/{id} ${first.body.status}: cell_count`).toBeUndefined();
    }
    const done = await pollPrediction(ctx, ack.body.prediction_id);
    expect(done.status, `GET /predict/{id} once done: status (error: ${done.error})`).toBe('COMPLETED');
    expect(done.segmentation_id, 'GET /predict/{id} COMPLETED: segmentation_id').toMatch(/^[0-9a-f-]{36}$/);
    expect(done.cell_count, 'GET /predict/{id} COMPLETED: cell_count').toBeGreaterThan(0);
  },
);

check(
  'a completed prediction of a picture with no cell on it carries its cell_count',
  { clauses: ['PRED-02'] },
  async (ctx) => {
    const imageId = await readyImage(ctx, flatTiff());
    // The oracle and the document: a COMPLETED prediction carries its cell_count, 0 as any other.
    // A model may also fail on such a picture, or find something in it: neither is the interface's
    // to forbid, so only the count's presence is judged.
    const done = await predicted(ctx, imageId, await fittingModelId(ctx.api), ctx.api);
    if (done.status === 'FAILED') return;
    expect(done.status, 'GET /predict/{id} of a flat picture: status').toBe('COMPLETED');
    expect(done.cell_count, 'GET /predict/{id} COMPLETED of a flat picture: cell_count').toEqual(
      expect.any(Number),
    );
  },
);

/**
 * How long a run held in the queue waits before it begins: long enough for the repeats sent right
 * after its POST /predict to find it SUBMITTED, short enough to add little to the run.
 */
const QUEUED_MS = 300;

/**
 * Who sends a check's predictions: with the control plane, a throw-away organization whose runs
 * wait QUEUED_MS before they begin and end only after `polls` polls, so a rule about runs in flight
 * is observed however fast the target is; elsewhere the check's own key, and timing decides.
 */
async function heldInFlight(
  ctx: CheckContext,
  label: string,
  plan: { storage_cap_images: number; monthly_analysis_cap: number },
  polls: number,
): Promise<ApiClient> {
  if (!ctx.target.capabilities.has('control')) return ctx.api;
  const org = await throwawayOrganization(ctx, label, plan);
  await org.progress({ start_delay_ms: QUEUED_MS, run_delay_ms: 0, complete_after_polls: polls });
  return org.client;
}

check(
  'an identical prediction in flight answers skipped with the same id, its ids written in upper case too',
  { clauses: ['PRED-04', 'VAL-06'] },
  async (ctx) => {
    // With the control plane, a throw-away organization holds the prediction in flight until it is
    // polled, so the rule is observed however fast the target is; elsewhere, timing decides. Its
    // run also waits a moment before it begins, so the repeats find it still SUBMITTED (queued):
    // "in flight" is the queue as much as the run (other checks repeat runs already STARTED).
    const client = await heldInFlight(
      ctx,
      'in-flight',
      { storage_cap_images: 2, monthly_analysis_cap: 2 },
      1,
    );
    const imageId = await readyImage(ctx, presetTiff('easy-16bit-512').bytes, client);
    const modelId = await fittingModelId(client);
    const first = await client.call<PredictionAck>('createPrediction', {
      body: { image_id: imageId, model_id: modelId },
    });
    const second = await client.call<PredictionAck>('createPrediction', {
      body: { image_id: imageId, model_id: modelId },
    });
    need(first, 200, ['prediction_id']);
    expectStatus(second, 200, 'the same prediction again');
    // ids are compared case-insensitively (the document's x-http-conventions.ids): the same image
    // and model in upper case are the identical prediction; sent only while the lower-case repeat
    // was skipped, so a target whose first run already ended is not asked for a third analysis
    const upper =
      second.body.status === 'skipped'
        ? await client.call<PredictionAck>('createPrediction', {
            body: { image_id: imageId.toUpperCase(), model_id: modelId.toUpperCase() },
          })
        : undefined;
    const state = need(
      await client.call<PredictionAsRead>('getPrediction', {
        params: { prediction_id: first.body.prediction_id },
      }),
      200,
    );
    if (state.body.status === 'SUBMITTED' || state.body.status === 'STARTED') {
      expect(second.body.status, 'POST /predict again while in flight: status').toBe('skipped');
      expect(second.body.prediction_id, 'POST /predict again: prediction_id').toBe(first.body.prediction_id);
      await ctx.verify('VAL-06', () =>
        expect(upper?.body, 'POST /predict again while in flight, its ids in upper case').toMatchObject({
          status: 'skipped',
          prediction_id: first.body.prediction_id,
        }),
      );
    } else if (second.body.status === 'skipped') {
      expect(second.body.prediction_id, 'POST /predict again: prediction_id').toBe(first.body.prediction_id);
      if (upper?.body.status === 'skipped')
        await ctx.verify('VAL-06', () =>
          expect(upper.body.prediction_id, 'POST /predict again, ids in upper case: prediction_id').toBe(
            first.body.prediction_id,
          ),
        );
    } else {
      ctx.skip(
        'the first prediction finished before the second request; the target is too fast to observe the rule',
      );
    }
    await pollPrediction(ctx, first.body.prediction_id, client);
  },
);

check(
  'identical predictions sent at once start one run: one answers submitted, the others skipped with its id',
  { clauses: ['PRED-04'] },
  async (ctx) => {
    // "`skipped` when an identical prediction is already in flight": of requests sent at once the
    // target takes one first, and the others find its run in flight unless it already ended. With
    // the control plane a throw-away organization holds the run in flight for two polls, so the
    // oracle (model/overlap.ts) predicts every answer but one skipped; elsewhere, runs with ids of
    // their own that a poll after every answer still reads in flight were in flight together (a
    // run that had ended by then leaves the rule unobserved).
    const client = await heldInFlight(ctx, 'at-once', { storage_cap_images: 1, monthly_analysis_cap: 3 }, 2);
    const imageId = await readyImage(ctx, presetTiff().bytes, client);
    const body = { image_id: imageId, model_id: await fittingModelId(client) };
    const acks = await sentAtOnce(client, 3, () => client.call<PredictionAck>('createPrediction', { body }));
    for (const ack of acks) need(ack, 200, ['prediction_id']);
    const ids = [...new Set(acks.map((ack) => ack.body.prediction_id))];
    const states = await Promise.all(
      ids.map(
        async (id) =>
          need(await client.call<PredictionAsRead>('getPrediction', { params: { prediction_id: id } }), 200)
            .body.status,
      ),
    );
    for (const id of ids) await pollPrediction(ctx, id, client);
    if (ids.length > 1 && !states.every((status) => status === 'SUBMITTED' || status === 'STARTED'))
      ctx.skip(
        'a run had ended before an identical one was started: the target is too fast to observe the rule',
      );
    expect(ids, 'identical predictions sent at once: the runs they started').toHaveLength(1);
    expect(
      acks.map((ack) => ack.body.status).sort(),
      'identical predictions sent at once: their statuses',
    ).toEqual(['skipped', 'skipped', 'submitted']);
  },
);

/** How long a run held by the control plane reads STARTED at least: several polls apart. */
const STARTED_MS = 400;

check(
  "a prediction's status moves forward only: once a poll read STARTED, none reads SUBMITTED",
  { clauses: ['PRED-08'], requires: ['control'] },
  async (ctx) => {
    // The oracle judges the order of every poll (the PRED-01..03 check's too, on any target); here
    // a throw-away organization's run stays STARTED for several polls, so the rule is met for sure.
    const org = await throwawayOrganization(ctx, 'forward', {
      storage_cap_images: 1,
      monthly_analysis_cap: 1,
    });
    await org.progress({ start_delay_ms: 0, run_delay_ms: STARTED_MS });
    const imageId = await readyImage(ctx, presetTiff().bytes, org.client);
    const ack = need(
      await org.client.call<PredictionAck>('createPrediction', {
        body: { image_id: imageId, model_id: await fittingModelId(org.client) },
      }),
      200,
      ['prediction_id'],
    );
    const seen = new Set<string>();
    await pollPrediction(ctx, ack.body.prediction_id, org.client, seen);
    if (!seen.has('STARTED'))
      ctx.skip(
        `no poll read STARTED in its ${STARTED_MS} ms at least (the machine too slow to observe the rule)`,
      );
  },
);

check(
  'predict answers 404 for an unknown image or model, one near a real one included',
  { clauses: ['PRED-05', 'ERR-01'] },
  async (ctx) => {
    const imageId = await readyImage(ctx, presetTiff().bytes);
    const modelId = await fittingModelId(ctx.api);
    const noImage = await ctx.api.call<{ detail: unknown }>('createPrediction', {
      body: { image_id: randomUUID(), model_id: modelId },
    });
    expectStatus(noImage, 404, 'predict an unknown image');
    expect(typeof noImage.body.detail, 'createPrediction 404: type of detail').toBe('string');
    const noModel = await ctx.api.call('createPrediction', {
      body: { image_id: imageId, model_id: randomUUID() },
    });
    expectStatus(noModel, 404, 'predict with an unknown model');
    // ids nobody has that share a real one's first block (the dashboard's short id) or all of it
    // but the last digit: a lookup by a prefix or a fixed width runs (and counts) the real model,
    // or finds the real image; the id is compared whole. The oracle predicts the 404 of a model
    // the organization's list does not hold too.
    for (const seed of [0, 1]) {
      const near = nearOf(modelId, seed);
      expectStatus(
        await ctx.api.call('createPrediction', { body: { image_id: imageId, model_id: near } }),
        404,
        `predict with model ${near}, nobody's, near the listed ${modelId}`,
      );
      const nearImage = nearOf(imageId, seed);
      expectStatus(
        await ctx.api.call('createPrediction', { body: { image_id: nearImage, model_id: modelId } }),
        404,
        `predict image ${nearImage}, nobody's, near the ready ${imageId}`,
      );
    }
    expectStatus(
      await ctx.api.call('getPrediction', { params: { prediction_id: randomUUID() } }),
      404,
      'read an unknown prediction',
    );
  },
);

check(
  'predict refuses an image that is not ready (uploading, or failed by an abort) with 422, the status of every state conflict',
  { clauses: ['UP-16', 'ERR-03'] },
  async (ctx) => {
    const opened = need(await openResumable(ctx, 1000), 200, ['image.id']);
    const modelId = await fittingModelId(ctx.api);
    const response = await ctx.api.call<{ detail: unknown }>('createPrediction', {
      body: { image_id: opened.body.image.id, model_id: modelId },
    });
    expectStatus(response, 422, 'predict an image still uploading');
    expect(typeof response.body.detail, 'createPrediction 422: type of detail').toBe('string');
    // failed is not ready either: the same upload given up (abort leaves the record, failed) is
    // refused as well, never queued for a run that could only fail on its missing pixels
    need(await ctx.api.call('abortUpload', { params: { image_id: opened.body.image.id } }), 200);
    const failed = await ctx.api.call<{ detail: unknown }>('createPrediction', {
      body: { image_id: opened.body.image.id, model_id: modelId },
    });
    expectStatus(failed, 422, 'predict an image failed by its abort');
    expect(typeof failed.body.detail, 'createPrediction 422 (failed image): type of detail').toBe('string');
  },
);

check(
  'predict answers 422 with a string detail for non-UUID ids and bad bodies',
  { clauses: ['VAL-03', 'VAL-04', 'VAL-05'], prismAnswersItself: true },
  async (ctx) => {
    const bodies: unknown[] = [
      { image_id: 'nope', model_id: randomUUID() },
      { image_id: randomUUID(), model_id: 42 },
      { image_id: randomUUID() },
      {},
    ];
    for (const body of bodies) {
      const response = await ctx.api.call<{ detail: unknown }>('createPrediction', { body });
      expectStatus(response, 422, `createPrediction with ${JSON.stringify(body)}`);
      expect(typeof response.body.detail, `createPrediction 422: type of detail`).toBe('string');
    }
    const malformed = await ctx.api.call<{ detail: unknown }>('createPrediction', {
      rawBody: '{"image_id":',
      headers: { 'content-type': 'application/json' },
    });
    expectStatus(malformed, 422, 'createPrediction with malformed JSON');
    expect(typeof malformed.body.detail, 'createPrediction 422: type of detail').toBe('string');
  },
);

check(
  'a FAILED prediction carries an error string',
  { clauses: ['PRED-06'], requires: ['control'] },
  async (ctx) => {
    // A throw-away organization, so the forced failure cannot land on another check's prediction.
    // The control plane is the mock's own, not the interface's: it is always called directly.
    const admin = { key: ctx.target.adminToken ?? null, headers: { 'content-type': 'application/json' } };
    const created = await ctx.api.raw('POST', `${ctx.target.directBaseUrl}/__mock/organizations`, {
      ...admin,
      body: JSON.stringify({
        name: `${ctx.target.namePrefix}failing`,
        plan: { storage_cap_images: 5, monthly_analysis_cap: 5 },
      }),
    });
    need(created, 200);
    const org = (await created.json()) as { id: string; api_keys: string[] };
    ctx.cleanup.add(() =>
      ctx.api.raw('POST', `${ctx.target.directBaseUrl}/__mock/reset`, {
        ...admin,
        body: JSON.stringify({ organization_id: org.id }),
      }),
    );
    const client = ctx.clientFor(org.api_keys[0]);
    const forced = await ctx.api.raw('POST', `${ctx.target.directBaseUrl}/__mock/predictions/outcomes`, {
      ...admin,
      body: JSON.stringify({ organization_id: org.id, status: 'FAILED', error: 'GPU worker out of memory' }),
    });
    need(forced, 200);
    const imageId = await readyImage(ctx, presetTiff().bytes, client);
    const ack = need(
      await client.call<PredictionAck>('createPrediction', {
        body: { image_id: imageId, model_id: await fittingModelId(client) },
      }),
      200,
      ['prediction_id'],
    );
    const done = await pollPrediction(ctx, ack.body.prediction_id, client);
    expect(done.status, 'GET /predict/{id} of a forced failure: status').toBe('FAILED');
    expect(done.error, 'GET /predict/{id} FAILED: error').toBe('GPU worker out of memory');
    expect(done.segmentation_id, 'GET /predict/{id} FAILED: segmentation_id').toBeUndefined();
    expect(client.violations, 'answers outside the document').toEqual([]);
  },
);
