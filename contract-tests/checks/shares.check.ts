import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check } from '../harness/check.js';
import type { CheckContext } from '../harness/check.js';
import { completedSegmentation } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import type { Share } from '../../openapi/generated/client/types.gen.js';

async function sharedSegmentation(ctx: CheckContext) {
  const segmentation = await completedSegmentation(ctx, presetTiff().bytes);
  const share = await ctx.api.call<Share>('createShare', {
    body: { segmentation_id: segmentation.segmentationId },
  });
  expect(share.status).toBe(200);
  ctx.cleanup.add(
    () => ctx.api.call('revokeShare', { params: { share_id: share.body.id }, unvalidated: true }),
    {
      kind: 'share',
      id: share.body.id,
      owner: 'main',
      baseUrl: ctx.target.baseUrl,
    },
  );
  return { ...segmentation, share: share.body };
}

check(
  'sharing a completed segmentation answers a live view-only share; repeating answers the same',
  { clauses: ['SHR-01', 'SHR-02', 'SHR-03'] },
  async (ctx) => {
    const { segmentationId, share } = await sharedSegmentation(ctx);
    expect(share).toMatchObject({
      segmentation_id: segmentationId,
      access: 'anyone_with_link',
      role: 'viewer',
      view_count: 0,
    });
    expect(share.revoked_at ?? null).toBeNull();
    expect(share.url).toMatch(/\/share\/[A-Za-z0-9_-]{16,}$/);
    const again = await ctx.api.call<Share>('createShare', { body: { segmentation_id: segmentationId } });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(share.id);
    expect(again.body.url).toBe(share.url);
  },
);

check(
  'the public page opens without credentials, shows the count, and counts each view',
  { clauses: ['SHR-08', 'SHR-09', 'SHR-04', 'AUTH-06'] },
  async (ctx) => {
    const { share, cellCount } = await sharedSegmentation(ctx);
    for (let i = 0; i < 2; i++) {
      const page = await ctx.api.raw('GET', share.url!, { key: null });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain(String(cellCount));
    }
    const read = await ctx.api.call<Share>('getShare', { params: { share_id: share.id } });
    expect(read.status).toBe(200);
    expect(read.body.view_count).toBe(2);
    expect(read.body.last_viewed_at).not.toBeNull();
  },
);

check(
  'revoking turns the link off, keeps the share readable, and a new share gets a new link',
  { clauses: ['SHR-05', 'SHR-06', 'SHR-07'] },
  async (ctx) => {
    const { segmentationId, share } = await sharedSegmentation(ctx);
    const revoked = await ctx.api.call<Share>('revokeShare', { params: { share_id: share.id } });
    expect(revoked.status).toBeGreaterThanOrEqual(200);
    expect(revoked.status).toBeLessThan(300);
    const read = await ctx.api.call<Share>('getShare', { params: { share_id: share.id } });
    expect(read.status).toBe(200);
    expect(read.body.revoked_at).not.toBeNull();
    const page = await ctx.api.raw('GET', share.url!, { key: null });
    // the share page documents 200 and 404 alone: a link that no longer opens answers the 404 page
    expect(page.status, 'viewSharePage of a revoked link').toBe(404);
    expect(page.headers.get('content-type'), 'viewSharePage 404: content type').toMatch(/^text\/html/);
    expect(await page.text(), 'viewSharePage 404: the "no longer available" page').toMatch(
      /no longer available/i,
    );
    expect((await ctx.api.call<Share>('getShare', { params: { share_id: share.id } })).body.view_count).toBe(
      read.body.view_count,
    );
    const fresh = await ctx.api.call<Share>('createShare', { body: { segmentation_id: segmentationId } });
    expect(fresh.status).toBe(200);
    ctx.cleanup.add(() =>
      ctx.api.call('revokeShare', { params: { share_id: fresh.body.id }, unvalidated: true }),
    );
    expect(fresh.body.id).not.toBe(share.id);
    expect(fresh.body.url).not.toBe(share.url);
    expect(
      (await ctx.api.raw('GET', share.url!, { key: null })).status,
      'the revoked link after a new share',
    ).toBe(404);
    expect((await ctx.api.raw('GET', fresh.body.url!, { key: null })).status).toBe(200);
  },
);

check(
  'shares answer 404 for an unknown segmentation or share, 422 with a string detail for bad ids',
  { clauses: ['SHR-10', 'VAL-03', 'VAL-04'] },
  async ({ api }) => {
    const unknown = await api.call<{ detail: unknown }>('createShare', {
      body: { segmentation_id: randomUUID() },
    });
    expect(unknown.status).toBe(404);
    expect((await api.call('getShare', { params: { share_id: randomUUID() } })).status).toBe(404);
    const bad = await api.call<{ detail: unknown }>('createShare', { body: { segmentation_id: 'nope' } });
    expect(bad.status).toBe(422);
    expect(typeof bad.body.detail).toBe('string');
  },
);
