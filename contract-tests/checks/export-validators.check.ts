/**
 * Conditional GET of the exports (EXP-11, assumed: the interface is silent on validators). A target
 * need not send an ETag; one that does must honour it: If-None-Match with that ETag answers 304,
 * no body, the same ETag, also when it is sent weak (`W/`), is one of a comma-separated list or is
 * `*` (any version of a file that exists), an overlay drawn with other options does not share its
 * ETag, and another segmentation's file (a second model's run on the same image) has a tag of its
 * own. Sharing the segmentation, opening its page and revoking the share change none of its files,
 * so none of their ETags either: the tags held before still answer 304.
 */
import { expect } from 'vitest';
import { check } from '../harness/check.js';
import type { CheckContext } from '../harness/check.js';
import { completedSegmentation, newShare, secondSegmentation } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { expectStatus, need } from '../harness/steps.js';
import type { Share } from '../../openapi/generated/client/types.gen.js';

const EXPORTS = ['exportMeasurementsCsv', 'exportRoisGeojson', 'exportRoisZip', 'exportOverlayPng'];

check(
  'an export sent with an ETag answers If-None-Match with it 304, with no body and the same ETag',
  { clauses: ['EXP-11'] },
  async (ctx) => {
    const first = await completedSegmentation(ctx, presetTiff().bytes);
    const params = { segmentation_id: first.segmentationId };
    const tags = await conditionalExports(ctx, params);
    if (!tags.size) ctx.skip('the target sends no ETag on exports (the interface does not ask for one)');
    // another model's run on the same image: its files are others, so are their tags; the oracle
    // judges each conditional request whose tag the target also gave another file
    const second = await secondSegmentation(ctx, first);
    if (second) {
      const secondParams = { segmentation_id: second.segmentationId };
      await conditionalExports(ctx, secondParams);
      // a client holding the first's file asks for the second's: the second's own file, unless the
      // two are the same bytes (the oracle predicts 304 only for the second's own tag)
      for (const [operationId, etag] of tags)
        await ctx.api.call<Buffer>(operationId, { params: secondParams, headers: { 'if-none-match': etag } });
    }
    const red = await ctx.api.call<Buffer>('exportOverlayPng', {
      params,
      query: { outline_color: 'FF0000' },
    });
    expectStatus(red, 200, 'overlay.png?outline_color=FF0000');
    const plain = await ctx.api.call<Buffer>('exportOverlayPng', { params });
    const [redTag, plainTag] = [red.headers.get('etag'), plain.headers.get('etag')];
    if (redTag !== null && plainTag !== null)
      expect(redTag, 'overlay.png: ETag of the red outlines against the default yellow ones').not.toBe(
        plainTag,
      );
    // last, so a target that cannot share blocks no judgement above
    await sharedOpenedRevoked(ctx, first.segmentationId);
    // the oracle holds each answer to the ETag the export came with first: 304 for the same file
    for (const [operationId, etag] of tags)
      expectStatus(
        await ctx.api.call<Buffer>(operationId, { params, headers: { 'if-none-match': etag } }),
        304,
        `${operationId} with If-None-Match: ${etag}, after the segmentation was shared and the share revoked`,
      );
    // said once the rest has run: a pass would claim another segmentation's files were told apart
    if (!second && !ctx.api.violations.length)
      ctx.skip(
        "no second segmentation of the image completed (the second model failed): another segmentation's tags were not compared",
      );
  },
);

/**
 * Each export of a segmentation, then asked again with its ETag: as sent, weak (`W/`) and in a
 * list; answers the ETag of each export that carried one.
 */
async function conditionalExports(
  ctx: CheckContext,
  params: { segmentation_id: string },
): Promise<Map<string, string>> {
  const tags = new Map<string, string>();
  for (const operationId of EXPORTS) {
    const first = await ctx.api.call<Buffer>(operationId, { params });
    expectStatus(first, 200, operationId);
    const etag = first.headers.get('etag');
    if (etag === null) continue;
    tags.set(operationId, etag);
    const again = await ctx.api.call<Buffer>(operationId, { params, headers: { 'if-none-match': etag } });
    expectStatus(again, 304, `${operationId} with If-None-Match: ${etag}`);
    expect(again.bytes.length, `${operationId} 304: bytes of the body`).toBe(0);
    expect(again.headers.get('etag'), `${operationId} 304: its ETag`).toBe(etag);
    // a cache or CDN that re-encoded the file sends its tag back weak: compared weakly, it matches
    const weak = etag.startsWith('W/') ? etag : `W/${etag}`;
    const weakly = await ctx.api.call<Buffer>(operationId, { params, headers: { 'if-none-match': weak } });
    expectStatus(weakly, 304, `${operationId} with If-None-Match: ${weak}`);
    // a cache holding several versions sends them all: one that still matches is enough
    const list = `"not-this-one", ${etag}`;
    const listed = await ctx.api.call<Buffer>(operationId, { params, headers: { 'if-none-match': list } });
    expectStatus(listed, 304, `${operationId} with If-None-Match: ${list}`);
    // `*` matches any version of a file that exists (RFC 9110 13.1.2): a cache revalidating whatever it holds
    const any = await ctx.api.call<Buffer>(operationId, { params, headers: { 'if-none-match': '*' } });
    expectStatus(any, 304, `${operationId} with If-None-Match: *`);
  }
  return tags;
}

/**
 * What a client does to a segmentation without touching its files: shares it, opens the share's
 * public page (a view counted on the share) and revokes the share (revoked again, as a no-op, at
 * the check's end).
 */
async function sharedOpenedRevoked(ctx: CheckContext, segmentationId: string): Promise<void> {
  const share = await newShare(ctx, segmentationId);
  need(await ctx.api.raw('GET', share.url!, { key: null }), 200);
  need(await ctx.api.call<Share>('revokeShare', { params: { share_id: share.id } }), 200);
}
