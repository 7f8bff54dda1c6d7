/**
 * The share lifecycle over HTTP against a running mock: one live link per segmentation even under
 * concurrent creates, exact view counts under concurrent opens, the token as the only secret, and
 * the 404s the interface asks for.
 */
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../server.js';
import {
  ACME_ORG,
  BETA_KEY,
  apiClient,
  tokenOf,
  type CompletedSegmentation,
  type LinkShare,
} from '../../../test-support/api-client.js';

let mock: RunningMock;
let api: ReturnType<typeof apiClient>;
let first: CompletedSegmentation;

beforeAll(async () => {
  mock = await startInstantMock();
  api = apiClient(mock.url);
  first = await api.completedSegmentation();
});
afterAll(() => mock?.close());

const liveSharesOf = async (segmentationId: string) => {
  const live = [];
  for (const id of await mock.services.state.shares.idsOfSegmentation(segmentationId)) {
    const share = (await mock.services.state.shares.get(id))!;
    if (!share.revokedAt) live.push(share);
  }
  return live;
};

describe('creating shares', () => {
  it('20 simultaneous creates for one segmentation make exactly one share', async () => {
    const segmentation = await api.completedSegmentation(undefined, first.imageId);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.call('POST', '/api/v1/shares', { segmentation_id: segmentation.segmentationId }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const ids = new Set(answers.map((a) => (a.body as LinkShare).id));
    expect(ids.size).toBe(1);
    expect(new Set(answers.map((a) => (a.body as LinkShare).url)).size).toBe(1);
    const [id] = ids;
    expect((await liveSharesOf(segmentation.segmentationId)).map((s) => s.id)).toEqual([id]);
    const share = answers[0].body as LinkShare;
    expect(share).toMatchObject({
      segmentation_id: segmentation.segmentationId,
      access: 'anyone_with_link',
      role: 'viewer',
      view_count: 0,
      revoked_at: null,
    });
  });

  it('after a revoke, simultaneous creates make exactly one new live share', async () => {
    const segmentation = await api.completedSegmentation(undefined, first.imageId);
    const old = await api.createShare(segmentation.segmentationId);
    expect((await api.call('DELETE', `/api/v1/shares/${old.id}`)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.createShare(segmentation.segmentationId)),
    );
    const ids = new Set(answers.map((a) => a.id));
    expect(ids.size).toBe(1);
    expect(ids.has(old.id)).toBe(false);
    expect(answers[0].url).not.toBe(old.url);
    expect(await liveSharesOf(segmentation.segmentationId)).toHaveLength(1);
  });

  it('tokens are at least 128 bits of base64url and differ across 100 shares', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 100; i++) {
      const share = await api.createShare(first.segmentationId);
      expect(share.url).toBe(`${mock.config.shareBaseUrl}/share/${tokenOf(share)}`);
      tokens.push(tokenOf(share));
      expect((await api.call('DELETE', `/api/v1/shares/${share.id}`)).status).toBe(200);
    }
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(new Set(tokens).size).toBe(100);
  });

  it("a share of another organization's segmentation is 404, and its share is invisible to them", async () => {
    const foreign = await api.call(
      'POST',
      '/api/v1/shares',
      { segmentation_id: first.segmentationId },
      BETA_KEY,
    );
    expect(foreign.status).toBe(404);
    expect(typeof foreign.body.detail).toBe('string');
    expect(await liveSharesOf(first.segmentationId)).toHaveLength(0);

    const mine = await api.createShare(first.segmentationId);
    expect((await api.call('GET', `/api/v1/shares/${mine.id}`, undefined, BETA_KEY)).status).toBe(404);
    expect((await api.call('DELETE', `/api/v1/shares/${mine.id}`, undefined, BETA_KEY)).status).toBe(404);
    expect((await api.getShare(mine.id)).revoked_at).toBeNull();
    expect((await api.call('DELETE', `/api/v1/shares/${mine.id}`)).status).toBe(200);
  });

  it('a segmentation whose prediction is not COMPLETED cannot be shared (404)', async () => {
    // hold the next prediction in STARTED until it is polled twice: its segmentation is written to
    // disk (so its id exists) but not yet published
    const progress = await api.call('PUT', '/__mock/predictions/progress', {
      organization_id: ACME_ORG,
      complete_after_polls: 2,
    });
    expect(progress.status).toBe(200);
    try {
      const known = new Set(await readdir(mock.services.paths.segmentations));
      const ack = await api.call('POST', '/api/v1/predict', {
        image_id: first.imageId,
        model_id: first.modelId,
      });
      expect(ack.status).toBe(200);
      const pending = await waitForNewEntry(mock.services.paths.segmentations, known);

      const started = await api.call('GET', `/api/v1/predict/${ack.body.prediction_id}`);
      expect(started.body.status).not.toBe('COMPLETED');
      expect(started.body.segmentation_id).toBeUndefined();
      const refused = await api.call('POST', '/api/v1/shares', { segmentation_id: pending });
      expect(refused.status).toBe(404);
      expect(await liveSharesOf(pending)).toHaveLength(0);

      // the same id becomes shareable once the prediction is COMPLETED: the 404 was about the state
      const done = await api.pollPrediction(ack.body.prediction_id);
      expect(done.status).toBe('COMPLETED');
      expect(done.segmentation_id).toBe(pending);
      expect((await api.call('POST', '/api/v1/shares', { segmentation_id: pending })).status).toBe(200);
    } finally {
      await api.call('PUT', '/__mock/predictions/progress', { organization_id: ACME_ORG });
    }
  });

  it('an unknown segmentation is 404 and a malformed id is 422', async () => {
    const unknown = await api.call('POST', '/api/v1/shares', {
      segmentation_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(404);
    const malformed = await api.call('POST', '/api/v1/shares', { segmentation_id: 'not-a-uuid' });
    expect(malformed.status).toBe(422);
    expect(typeof malformed.body.detail).toBe('string');
  });
});

describe('the public page and its image', () => {
  let segmentation: CompletedSegmentation;
  let share: LinkShare;

  beforeAll(async () => {
    segmentation = await api.completedSegmentation(undefined, first.imageId);
    share = await api.createShare(segmentation.segmentationId);
  });

  it('50 concurrent opens count exactly 50 views', async () => {
    const before = await api.getShare(share.id);
    const pages = await Promise.all(Array.from({ length: 50 }, () => fetch(share.url)));
    expect(pages.map((p) => p.status)).toEqual(Array(50).fill(200));
    await Promise.all(pages.map((p) => p.text()));
    const after = await api.getShare(share.id);
    expect(after.view_count - before.view_count).toBe(50);
    expect(after.last_viewed_at).not.toBeNull();
  });

  it('the preview image does not count a view', async () => {
    const before = await api.getShare(share.id);
    const image = await fetch(`${share.url}/image.png`);
    expect(image.status).toBe(200);
    await image.arrayBuffer();
    expect((await api.getShare(share.id)).view_count).toBe(before.view_count);
  });

  it('the page, its headers and the image url name no image, segmentation, prediction, organization or share id', async () => {
    const response = await fetch(share.url);
    expect(response.status).toBe(200);
    const html = await response.text();
    const headers = [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
    const src = /<img[^>]*\ssrc="([^"]+)"/.exec(html)?.[1];
    expect(src).toBeDefined();
    const imageUrl = new URL(src!.replace(/&amp;/g, '&'), share.url).href;
    expect(imageUrl).toBe(`${share.url}/image.png`);
    const record = (await mock.services.state.segmentations.get(segmentation.segmentationId))!;
    const secrets = {
      image: segmentation.imageId,
      segmentation: segmentation.segmentationId,
      prediction: segmentation.predictionId,
      organization: ACME_ORG,
      share: share.id,
      model: segmentation.modelId,
      roi: record.roiIds[0],
    };
    for (const [name, id] of Object.entries(secrets)) {
      expect(id, name).toMatch(/^[0-9a-f-]{36}$/);
      for (const text of [html, headers, imageUrl])
        expect(text.toLowerCase().includes(id.toLowerCase()), `${name} id in the page`).toBe(false);
    }
    // the page is what the browser test reads: prove these are the cells of this segmentation
    expect(html.match(/<polygon /g)).toHaveLength(segmentation.cellCount);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('needs no credential, and a credential of another organization changes nothing', async () => {
    const response = await fetch(share.url, { headers: { authorization: `Bearer ${BETA_KEY}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data-testid="outlines"');
  });

  it('an unknown token: 404 page and 404 image', async () => {
    const unknown = `${mock.config.shareBaseUrl}/share/${'A'.repeat(43)}`;
    const page = await fetch(unknown);
    expect(page.status).toBe(404);
    expect(await page.text()).toMatch(/no longer available/i);
    expect((await fetch(`${unknown}/image.png`)).status).toBe(404);
  });

  it('revoked: 404 page and 404 image, no views counted, revoke twice keeps the first revoked_at', async () => {
    const image = await fetch(`${share.url}/image.png`);
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );

    const revoked = await api.call('DELETE', `/api/v1/shares/${share.id}`);
    expect(revoked.status).toBe(200);
    const firstRevokedAt = revoked.body.revoked_at as string;
    expect(Date.parse(firstRevokedAt)).not.toBeNaN();

    const page = await fetch(share.url);
    expect(page.status).toBe(404);
    expect(await page.text()).toMatch(/no longer available/i);
    expect((await fetch(`${share.url}/image.png`)).status).toBe(404);

    // move the mock clock an hour on, so a second revocation time would differ from the first
    expect((await api.call('POST', '/__mock/clock', { advance_ms: 3_600_000 })).status).toBe(200);
    try {
      const again = await api.call('DELETE', `/api/v1/shares/${share.id}`);
      expect(again.status).toBe(200);
      expect(again.body.revoked_at).toBe(firstRevokedAt);
      const read = await api.getShare(share.id);
      expect(read.revoked_at).toBe(firstRevokedAt);
      expect(read.view_count).toBe(revoked.body.view_count);
      expect(read.last_viewed_at).toBe(revoked.body.last_viewed_at);
    } finally {
      await api.call('POST', '/__mock/clock', { reset: true });
    }
  });
});

/** Waits (bounded) for a folder to appear that was not there before, and returns its name. */
/** The next segmentation folder to appear; a staging folder (`.<id>.tmp`, renamed when whole) is not one yet. */
async function waitForNewEntry(dir: string, known: Set<string>): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const fresh = (await readdir(dir)).filter((name) => !known.has(name) && !name.startsWith('.'));
    if (fresh.length === 1) return fresh[0];
    if (fresh.length > 1) throw new Error(`more than one new entry in ${dir}: ${fresh.join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no new entry in ${dir}`);
}
