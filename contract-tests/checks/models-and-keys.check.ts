import { expect } from 'vitest';
import type { ApiClient } from '../harness/api-client.js';
import { check, type CheckContext } from '../harness/check.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { openResumable, pollImage, pollPrediction, putParts, readyImage } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { expectStatus, need } from '../harness/steps.js';
import type { Model, PredictionAck } from '../../openapi/generated/client/types.gen.js';

/**
 * What GET /models lists and who lists it: every key of an organization, every shared base model
 * beside its custom ones, and only models a prediction takes. The checks send the requests; the
 * oracle (contract-tests/model) judges the answers from the earlier ones.
 */

/**
 * Two keys of one organization: on a target with the control plane, a throw-away organization
 * with a custom model and a key added to it, whose predictions are held in flight until polled
 * (`held`); elsewhere the main organization's key and CONTRACT_SECOND_API_KEY, another key of the
 * same organization.
 */
async function twoKeys(ctx: CheckContext): Promise<{ first: ApiClient; second: ApiClient; held: boolean }> {
  if (!ctx.target.capabilities.has('control')) {
    const second = ctx.target.keys.second;
    if (!second)
      ctx.skip(
        "needs a second key of the main organization (CONTRACT_SECOND_API_KEY), or 'control' to add one to an organization of its own",
      );
    return { first: ctx.api, second: ctx.clientFor(second!), held: false };
  }
  const org = await throwawayOrganization(ctx, 'two-keys', {
    storage_cap_images: 4,
    monthly_analysis_cap: 1,
  });
  await org.progress({ start_delay_ms: 0, run_delay_ms: 0, complete_after_polls: 1 });
  const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
  need(
    await ctx.api.call('mockCreateModel', {
      ...admin,
      params: { organization_id: org.id },
      body: { name: `${ctx.target.namePrefix}custom`, engine: 'threshold' },
    }),
    200,
    ['id'],
  );
  return { first: org.client, second: await org.addKey(), held: true };
}

check(
  "a second key of an organization lists the first key's models, repeats its prediction in flight as skipped, exports its segmentation, completes and aborts uploads the first key opened, and reads and deletes the image the first key made",
  { clauses: ['ISO-03'] },
  async (ctx) => {
    // "a key is scoped to the organization that owns it": the oracle takes both keys as the
    // organization's, and predicts the second key's list (the same models, the custom ones
    // included), its reads of the first key's image, and its repeat of the first key's
    // prediction held in flight (`skipped` with that id: the identical run is the organization's)
    // and its exports of the segmentation that run made; and its complete and abort of uploads
    // the first key opened
    const { first, second, held } = await twoKeys(ctx);
    const custom = (models: Model[]) => models.filter((m) => m.kind === 'custom').map((m) => m.id);
    const listed = need(await first.call<Model[]>('listModels'), 200).body;
    expect(
      custom(need(await second.call<Model[]>('listModels'), 200).body),
      "custom models in the second key's list",
    ).toEqual(custom(listed));
    const image = await readyImage(ctx, presetTiff().bytes, first);
    if (held && listed.length) await repeatWithSecondKey(ctx, { first, second }, image, listed[0].id);
    await closeWithSecondKey(ctx, first, second);
    const params = { image_id: image };
    expectStatus(
      await second.call('getUpload', { params }),
      200,
      "GET /upload/{id} of the first key's image",
    );
    expectStatus(await second.call('getImage', { params }), 200, "GET /image/{id} of the first key's image");
    expectStatus(await second.call('deleteImage', { params }), [200, 204], "DELETE of the first key's image");
  },
);

/**
 * Resumable uploads the first key opened, closed with the second: the upload is the
 * organization's, not the key's, so a client that rotates keys mid-upload (or completes from
 * another service) completes it (202, then ready) and aborts another (failed). The oracle predicts
 * both from the parts it saw PUT, as it would with the first key.
 */
async function closeWithSecondKey(ctx: CheckContext, first: ApiClient, second: ApiClient): Promise<void> {
  const { bytes } = presetTiff();
  const opened = need(await openResumable(ctx, bytes.length, 'second-key-completes.tif', first), 200, [
    'image.id',
    'upload.urls',
  ]).body;
  await putParts(first, opened.upload!, bytes);
  const params = { image_id: opened.image.id };
  expectStatus(
    await second.call('completeUpload', { params }),
    202,
    "complete, with the second key, of the first key's upload",
  );
  expect((await pollImage(ctx, opened.image.id, first)).upload_status, 'the upload completed').toBe('ready');
  const given = need(await openResumable(ctx, 1000, 'second-key-aborts.tif', first), 200, ['image.id']).body;
  expectStatus(
    await second.call('abortUpload', { params: { image_id: given.image.id } }),
    200,
    "abort, with the second key, of the first key's upload",
  );
}

/**
 * The first key's prediction, held in flight, repeated with the second key: skipped, with its id.
 * Once the first key's poll reads it completed, the second key asks for each export of its
 * segmentation: the oracle predicts each found (the organization's own, whichever key ran it).
 */
async function repeatWithSecondKey(
  ctx: CheckContext,
  keys: { first: ApiClient; second: ApiClient },
  imageId: string,
  modelId: string,
) {
  const { first, second } = keys;
  const body = { image_id: imageId, model_id: modelId };
  const started = need(await first.call<PredictionAck>('createPrediction', { body }), 200, ['prediction_id']);
  const repeated = need(await second.call<PredictionAck>('createPrediction', { body }), 200);
  expect(
    repeated.body,
    "the first key's prediction in flight, asked again with the second key",
  ).toMatchObject({
    status: 'skipped',
    prediction_id: started.body.prediction_id,
  });
  const done = await pollPrediction(ctx, started.body.prediction_id, first);
  const segmentationId = done.status === 'COMPLETED' ? done.segmentation_id : undefined;
  if (!segmentationId) return;
  for (const operationId of EXPORTS)
    expectStatus(
      await second.call(operationId, { params: { segmentation_id: segmentationId } }),
      200,
      `${operationId} of the first key's segmentation, asked with the second key`,
    );
}

const EXPORTS = ['exportOverlayPng', 'exportMeasurementsCsv', 'exportRoisGeojson', 'exportRoisZip'];

check(
  'the model list does not depend on usage: an organization at its storage and analysis caps lists the same models',
  { clauses: ['MOD-02'], requires: ['control'] },
  async (ctx) => {
    // "Models available to an organization: the shared public base models plus custom models":
    // no cap is named there, so a list filtered to what the organization can still run (or store)
    // is wrong; the oracle holds each later list of the organization to its first
    const org = await throwawayOrganization(ctx, 'models-at-caps', {
      storage_cap_images: 1,
      monthly_analysis_cap: 1,
    });
    const listed = need(await org.client.call<Model[]>('listModels'), 200, ['0.id']).body;
    const image = await readyImage(ctx, presetTiff().bytes, org.client);
    need(
      await org.client.call<PredictionAck>('createPrediction', {
        body: { image_id: image, model_id: listed[0].id },
      }),
      200,
    );
    const atCaps = need(await org.client.call<Model[]>('listModels'), 200).body;
    expect(
      atCaps.map((m) => m.id),
      'GET /models with the storage and analysis caps reached',
    ).toEqual(listed.map((m) => m.id));
  },
);

/**
 * The plan names the target's own organizations are on, as the operator lists them (not those of
 * the organizations this run made, named with its prefix and their plans after their labels).
 */
async function planNames(ctx: CheckContext): Promise<string[]> {
  const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
  const listed = need(
    await ctx.api.call<Array<{ name?: unknown; plan?: { name?: unknown } }>>('mockListOrganizations', admin),
    200,
  );
  const names = listed.body
    .filter((o) => typeof o.name !== 'string' || !o.name.startsWith(ctx.target.namePrefix))
    .map((o) => o.plan?.name)
    .filter((n): n is string => typeof n === 'string');
  return [...new Set(names)];
}

check(
  'an organization lists every version of its custom models, on every plan the target has',
  { clauses: ['MOD-02'], requires: ['control'] },
  async (ctx) => {
    // "Models available to an organization: the shared public base models plus custom models
    // trained in the dashboard": all of them, so a second version of a model (named as the
    // dashboard names versions, `-v1`, `-v2`) is listed beside the first, which still runs, and
    // no plan hides them (the interface ties plans to caps only). The oracle holds each list to
    // the custom models made here, after each change of plan.
    const org = await throwawayOrganization(ctx, 'model-versions', {
      storage_cap_images: 1,
      monthly_analysis_cap: 1,
    });
    const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
    const made: string[] = [];
    for (const version of ['v1', 'v2'])
      made.push(
        need(
          await ctx.api.call<Model>('mockCreateModel', {
            ...admin,
            params: { organization_id: org.id },
            body: { name: `${ctx.target.namePrefix}versioned-${version}`, engine: 'threshold' },
          }),
          200,
          ['id'],
        ).body.id,
      );
    const customIds = async (on: string) =>
      expect(
        need(await org.client.call<Model[]>('listModels'), 200)
          .body.filter((m) => m.kind === 'custom')
          .map((m) => m.id)
          .sort(),
        `custom models listed on the plan ${on}`,
      ).toEqual([...made].sort());
    await customIds('model-versions');
    for (const name of await planNames(ctx)) {
      need(
        await ctx.api.call('mockSetPlan', {
          ...admin,
          params: { organization_id: org.id },
          body: { name, storage_cap_images: 1, monthly_analysis_cap: 1 },
        }),
        200,
      );
      await customIds(name);
    }
  },
);

check(
  'a custom model named as a base model is listed beside that base model',
  { clauses: ['MOD-02'], requires: ['control'] },
  async (ctx) => {
    // the main organization's list gives the base models the oracle holds every list to
    const base = need(await ctx.api.call<Model[]>('listModels'), 200, ['0.id'])
      .body.filter((m) => m.kind === 'base')
      .map((m) => m.name);
    if (!base.length) ctx.skip('the main organization lists no base model to name a custom one after');
    const org = await throwawayOrganization(ctx, 'same-name', {
      storage_cap_images: 1,
      monthly_analysis_cap: 1,
    });
    need(
      await ctx.api.call('mockCreateModel', {
        key: ctx.target.adminToken ?? null,
        baseUrl: ctx.target.directBaseUrl,
        params: { organization_id: org.id },
        body: { name: base[0], engine: 'threshold' },
      }),
      200,
      ['id'],
    );
    const listed = need(await org.client.call<Model[]>('listModels'), 200).body;
    expect(
      listed
        .filter((m) => m.name === base[0])
        .map((m) => m.kind)
        .sort(),
      `models named ${base[0]}`,
    ).toEqual(['base', 'custom']);
  },
);

check(
  'every listed model is taken by POST /predict: each asked on an image still uploading answers 422, not 404',
  { clauses: ['MOD-02'] },
  async (ctx) => {
    // An image still uploading is refused for its state (422) by any model the list offers, and no
    // analysis is counted: a model the list offers that predict does not know answers 404 (the
    // oracle predicts the 422 of a listed model; a target that judges the image first says
    // nothing of the model, and fails nothing)
    const models = need(await ctx.api.call<Model[]>('listModels'), 200).body;
    const opened = need(await openResumable(ctx, 1000, 'not-ready.tif'), 200, ['image.id']).body;
    for (const model of models)
      await ctx.api.call('createPrediction', { body: { image_id: opened.image.id, model_id: model.id } });
  },
);

check(
  'deleting an image a custom model segmented leaves the model listed and taken by POST /predict',
  { clauses: ['MOD-02'] },
  async (ctx) => {
    // A delete removes "the image and derived storage" (its predictions, their results): the model
    // that ran on it is the organization's, not the image's. The oracle holds the list after the
    // delete to the one before, and predicts the model's next predict (on an image still
    // uploading, so nothing is counted) refused for the image's state, 422, never 404.
    const { client, model } = await customModel(ctx);
    const before = need(await client.call<Model[]>('listModels'), 200).body;
    const image = await readyImage(ctx, presetTiff().bytes, client);
    const ack = need(
      await client.call<PredictionAck>('createPrediction', { body: { image_id: image, model_id: model } }),
      200,
      ['prediction_id'],
    );
    await pollPrediction(ctx, ack.body.prediction_id, client);
    expectStatus(
      await client.call('deleteImage', { params: { image_id: image } }),
      [200, 204],
      'DELETE the image',
    );
    const after = need(await client.call<Model[]>('listModels'), 200).body;
    expect(
      after.map((m) => m.id).sort(),
      'GET /models after deleting an image the custom model ran on',
    ).toEqual(before.map((m) => m.id).sort());
    const opened = need(await openResumable(ctx, 1000, 'after-delete.tif', client), 200, ['image.id']).body;
    const again = await client.call('createPrediction', {
      body: { image_id: opened.image.id, model_id: model },
    });
    expectStatus(again, 422, 'POST /predict with the custom model, on an image still uploading');
  },
);

/**
 * A custom model and the client of its organization: on a target with the control plane, one made
 * for a throw-away organization; elsewhere the main organization's first custom model (none: skip).
 */
async function customModel(ctx: CheckContext): Promise<{ client: ApiClient; model: string }> {
  if (!ctx.target.capabilities.has('control')) {
    const listed = need(await ctx.api.call<Model[]>('listModels'), 200).body;
    const custom = listed.find((m) => m.kind === 'custom');
    if (!custom) ctx.skip('the main organization lists no custom model, and the target has no control plane');
    return { client: ctx.api, model: custom!.id };
  }
  const org = await throwawayOrganization(ctx, 'custom-after-delete', {
    storage_cap_images: 2,
    monthly_analysis_cap: 1,
  });
  const made = need(
    await ctx.api.call<Model>('mockCreateModel', {
      key: ctx.target.adminToken ?? null,
      baseUrl: ctx.target.directBaseUrl,
      params: { organization_id: org.id },
      body: { name: `${ctx.target.namePrefix}custom-after-delete`, engine: 'threshold' },
    }),
    200,
    ['id'],
  );
  return { client: org.client, model: made.body.id };
}
