import { check } from '../harness/check.js';
import { completedSegmentation, trackShare } from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { sharedContract, type OperationSpec } from '../harness/openapi-contract.js';
import { presetTiff } from '../harness/sample-images.js';
import { expectStatus, need } from '../harness/steps.js';

/**
 * Missing and bad credentials aimed at resources that exist: the caller's own image, prediction,
 * segmentation and share, in the path and in the body. Requests at random ids cannot tell a key
 * checked first from a lookup that answers whatever exists; these can. Every operation that names
 * a resource is asked, reads first and deletions last, so a target that lets one through still
 * has the resource for the next. The oracle predicts each 401 too.
 */
const contract = sharedContract();
const ORDER: Record<string, number> = { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 };
const aimed = [...contract.operations.values()].filter(
  (op) => op.document === 'public' && op.secured && !op.tags.includes('internal'),
);

/** A JSON body naming the real resources, when every required field is one of them. */
function realBody(op: OperationSpec, ids: Record<string, string>): Record<string, string> | undefined {
  const body = op.raw.requestBody as Record<string, unknown> | undefined;
  const content = (body ? contract.deref(body).content : undefined) as
    Record<string, { schema?: Record<string, unknown> }> | undefined;
  const raw = content?.['application/json']?.schema;
  if (!raw) return undefined;
  const required = (contract.deref(raw).required as string[] | undefined) ?? [];
  if (!required.length || required.some((name) => ids[name] === undefined)) return undefined;
  return Object.fromEntries(required.map((name) => [name, ids[name]]));
}

check(
  "missing or bad credentials aimed at the caller's own resources answer 401",
  { clauses: ['AUTH-01', 'AUTH-02'], prismAnswersItself: true },
  async (ctx) => {
    const { segmentationId, imageId, predictionId } = await completedSegmentation(ctx, presetTiff().bytes);
    const share = need(
      await ctx.api.call<{ id: string }>('createShare', { body: { segmentation_id: segmentationId } }),
      200,
      ['id'],
    );
    trackShare(ctx, share.body.id, segmentationId);
    const ids: Record<string, string> = {
      image_id: imageId,
      prediction_id: predictionId,
      segmentation_id: segmentationId,
      share_id: share.body.id,
      model_id: await fittingModelId(ctx.api),
    };
    const key = ctx.target.keys.main;
    const forged = key.slice(0, -1) + (key.at(-1) === '0' ? '1' : '0');
    const keys = [
      ['no key', null],
      ['an unknown key', 'sk_test_unknown_key_000000000000000000'],
      ['the key with its last character changed', forged],
    ] as const;
    let asked = 0;
    // one rank at a time (reads, then writes, then deletions), its requests at once
    for (const rank of [0, 1, 2]) {
      const requests = aimed
        .filter((op) => (ORDER[op.method.toUpperCase()] ?? 1) === rank)
        .flatMap((op) => {
          const body = realBody(op, ids);
          const named = op.pathParams.length > 0 && op.pathParams.every((p) => ids[p] !== undefined);
          if (!named && !body) return [];
          const params = Object.fromEntries(op.pathParams.map((p) => [p, ids[p]]));
          return keys.map(async ([label, sent]) => {
            const answer = await ctx.api.call(op.operationId, {
              params,
              key: sent,
              ...(body ? { body } : {}),
            });
            expectStatus(answer, 401, `${op.operationId} of an existing resource with ${label}`);
          });
        });
      asked += requests.length;
      await Promise.all(requests);
    }
    if (asked === 0) throw new Error('no operation of the document names an image, segmentation or share');
  },
);
