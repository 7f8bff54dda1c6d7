import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { expectStatus, need } from '../harness/steps.js';
import type { ApiClient } from '../harness/api-client.js';
import type { CheckContext } from '../harness/check.js';
import { openResumable, pollPrediction, uploadFile } from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { presetTiff } from '../harness/sample-images.js';
import type { UploadResponse } from '../../openapi/generated/client/types.gen.js';

const MAX_FILL = 60;

/** Opens resumable uploads on the tiny-plan organization until the storage cap answers 402. */
async function fillStorage(
  ctx: CheckContext,
  tiny: ApiClient,
): Promise<{ created: string[]; refusal: { detail: string } }> {
  const created: string[] = [];
  for (let i = 0; i < MAX_FILL; i++) {
    const response = await openResumable(ctx, 1000, `fill-${i}.tif`, tiny, 'tiny');
    if (response.status === 402) return { created, refusal: response.body as unknown as { detail: string } };
    need(response, [200], ['image.id']);
    created.push(response.body.image.id);
  }
  throw new Error(`no 402 after ${MAX_FILL} images: the tiny plan's cap is larger than this check allows`);
}

check(
  'the storage cap answers 402 on both upload modes and on record creation; aborted images count; deleting frees a slot',
  {
    clauses: ['CAP-01', 'CAP-02', 'CAP-03', 'ERR-01'],
    requires: ['caps'],
    needs: ['tiny'],
    sequential: true,
  },
  async (ctx) => {
    const tiny = ctx.tiny!;
    const { created, refusal } = await fillStorage(ctx, tiny);
    expect(typeof refusal.detail, 'uploadImage 402: type of detail').toBe('string');
    expect(refusal.detail.length, 'uploadImage 402: length of detail').toBeGreaterThan(20);

    const single = await uploadFile(ctx, presetTiff().bytes, 'over-cap.tif', tiny, 'tiny');
    expectStatus(single, 402, 'a single-request upload over the cap');
    const record = await tiny.call<{ detail: string }>('createImage', {
      body: { name: `${ctx.target.namePrefix}over.tif`, size: 10, resumable: true },
    });
    expectStatus(record, 402, 'an image record over the cap');
    expect(typeof record.body.detail, 'createImage 402: type of detail').toBe('string');

    if (created.length === 0)
      ctx.skip(
        'the tiny-plan organization was already full; cannot show that aborting and deleting change the count',
      );
    expectStatus(await tiny.call('abortUpload', { params: { image_id: created[0] } }), 200);
    expectStatus(await openResumable(ctx, 1000, 'after-abort.tif', tiny, 'tiny'), 402);
    expectStatus(await tiny.call('deleteImage', { params: { image_id: created[0] } }), 200);
    const afterDelete = await openResumable(ctx, 1000, 'after-delete.tif', tiny, 'tiny');
    expectStatus(afterDelete, 200);
  },
);

check(
  'the storage cap holds under 50 simultaneous uploads',
  { clauses: ['CAP-01'], requires: ['caps', 'load'], needs: ['tiny'], sequential: true },
  async (ctx) => {
    const tiny = ctx.tiny!;
    const { created } = await fillStorage(ctx, tiny);
    if (created.length === 0) ctx.skip('the tiny-plan organization was already full');
    for (const id of created) expectStatus(await tiny.call('deleteImage', { params: { image_id: id } }), 200);
    const free = created.length;
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => openResumable(ctx, 1000, `burst-${i}.tif`, tiny, 'tiny')),
    );
    const statuses = responses.map((r) => r.status);
    // Any other answer is named with its body, so a failure says what the target answered.
    const others = responses
      .filter((r) => r.status !== 200 && r.status !== 402)
      .map((r) => `${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    expect(others, `50 simultaneous uploads with ${free} free: answers neither 200 nor 402`).toEqual([]);
    expect(
      statuses.filter((s) => s === 200),
      `50 simultaneous uploads with ${free} free: the 200s`,
    ).toHaveLength(free);
    expect(
      statuses.filter((s) => s === 402),
      `50 simultaneous uploads: the 402s`,
    ).toHaveLength(50 - free);
  },
);

check(
  'the monthly analysis cap answers 402 with a readable detail',
  { clauses: ['CAP-04'], requires: ['caps'], needs: ['tiny'], sequential: true },
  async (ctx) => {
    const tiny = ctx.tiny!;
    const upload = await uploadFile(ctx, presetTiff().bytes, 'quota.tif', tiny, 'tiny');
    if (upload.status === 402)
      ctx.skip('the tiny-plan organization has no free storage slot for the image to analyse');
    const imageId = (need(upload, 200, ['image.id']).body as UploadResponse).image.id;
    const modelId = await fittingModelId(tiny);
    for (let i = 0; i < MAX_FILL; i++) {
      const response = await tiny.call<{ prediction_id: string; detail: string }>('createPrediction', {
        body: { image_id: imageId, model_id: modelId },
      });
      if (response.status === 402) {
        expect(typeof response.body.detail, 'createPrediction 402: type of detail').toBe('string');
        expect(response.body.detail, 'createPrediction 402: detail').toMatch(/month|analys|quota|cap|limit/i);
        return;
      }
      need(response, 200, ['prediction_id']);
      await pollPrediction(ctx, response.body.prediction_id, tiny);
    }
    throw new Error(`no 402 after ${MAX_FILL} analyses`);
  },
);
