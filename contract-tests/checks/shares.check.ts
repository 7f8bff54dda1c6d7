import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { expectStatus, need } from '../harness/steps.js';
import type { CheckContext } from '../harness/check.js';
import {
  completedSegmentation,
  newShare,
  secondSegmentation,
  sentAtOnce,
  trackShare,
  trackSharesMade,
} from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import type { Share } from '../../openapi/generated/client/types.gen.js';

/** The token a share's url ends in (`{share_base_url}/share/<share_token>`). */
const shareToken = (url: string) => url.split('/').pop()!;

async function sharedSegmentation(ctx: CheckContext) {
  const segmentation = await completedSegmentation(ctx, presetTiff().bytes);
  return { ...segmentation, share: await newShare(ctx, segmentation.segmentationId) };
}

check(
  'sharing a completed segmentation answers a live view-only share; repeating answers the same',
  { clauses: ['SHR-01', 'SHR-02', 'SHR-03'] },
  async (ctx) => {
    const { segmentationId, share } = await sharedSegmentation(ctx);
    expect(share, 'POST /shares: the share').toMatchObject({
      segmentation_id: segmentationId,
      access: 'anyone_with_link',
      role: 'viewer',
      view_count: 0,
    });
    expect(share.revoked_at ?? null, 'POST /shares: revoked_at of a new share').toBeNull();
    expect(share.url, 'POST /shares: url').toMatch(/\/share\/[A-Za-z0-9_-]{16,}$/);
    // opened once first, so the same share comes back with its view: the oracle holds the repeated
    // answer, and the read after it, to the open counted (a share made afresh would count none)
    need(await ctx.api.raw('GET', share.url!, { key: null }), 200);
    const again = await ctx.api.call<Share>('createShare', { body: { segmentation_id: segmentationId } });
    expectStatus(again, 200, 'share the same segmentation again');
    expect(again.body.id, 'POST /shares again: id').toBe(share.id);
    expect(again.body.url, 'POST /shares again: url').toBe(share.url);
    need(await ctx.api.call<Share>('getShare', { params: { share_id: share.id } }), 200);
  },
);

check(
  "a second model's segmentation of a shared image gets a share of its own",
  { clauses: ['SHR-01', 'SHR-02'] },
  async (ctx) => {
    // the oracle holds each answer to the segmentation it was asked for: one live link per
    // segmentation, so another run on the same image is shared apart, and the first keeps its own
    const first = await sharedSegmentation(ctx);
    const second = await secondSegmentation(ctx, first);
    if (!second)
      return ctx.skip('a second segmentation of the shared image did not complete (the second model failed)');
    await newShare(ctx, second.segmentationId);
    need(await ctx.api.call<Share>('createShare', { body: { segmentation_id: first.segmentationId } }), 200);
  },
);

/**
 * The segmentation a share check makes, and the keys it shares it with: on a target with the
 * control plane, a throw-away organization's first key and a key added to it; elsewhere the main
 * organization's key and CONTRACT_SECOND_API_KEY, another key of it (none: one key only).
 */
async function segmentationOfTwoKeys(ctx: CheckContext) {
  if (!ctx.target.capabilities.has('control')) {
    const second = ctx.target.keys.second;
    const segmentation = await completedSegmentation(ctx, presetTiff().bytes);
    return { segmentation, first: ctx.api, second: second ? ctx.clientFor(second) : undefined };
  }
  const org = await throwawayOrganization(ctx, 'share-keys', {
    storage_cap_images: 1,
    monthly_analysis_cap: 1,
  });
  const segmentation = await completedSegmentation(ctx, presetTiff().bytes, org.client);
  return { segmentation, first: org.client, second: await org.addKey() };
}

check(
  'a segmentation shared by several requests at once, and again with another key of its organization, has one share',
  { clauses: ['SHR-02'] },
  async (ctx) => {
    // "Idempotent: a segmentation has at most one live link; repeating returns the same share":
    // requests at once are repeats of each other whichever the target takes first (the oracle,
    // model/overlap.ts, judges them so), and the link is the segmentation's, not the key's
    const { segmentation, first, second } = await segmentationOfTwoKeys(ctx);
    const body = { segmentation_id: segmentation.segmentationId };
    const shares = await sentAtOnce(first, 3, () => first.call<Share>('createShare', { body }));
    const made = shares.find((answer) => answer.status === 200)?.body;
    // the main organization's shares, each one made (a throw-away organization goes with its shares)
    const owned = first === ctx.api;
    if (owned) trackSharesMade(ctx, shares, segmentation.segmentationId);
    expect(
      shares.map((answer) => `${answer.status} ${answer.body?.id}`),
      'the same segmentation shared by three requests at once',
    ).toEqual(shares.map(() => `200 ${made?.id}`));
    if (!second) return;
    const again = await second.call<Share>('createShare', { body });
    if (owned) trackSharesMade(ctx, [again], segmentation.segmentationId);
    expectStatus(again, 200, 'the same segmentation shared with another key of the organization');
    expect(again.body, 'POST /shares with another key of the organization: the same share').toMatchObject({
      id: made?.id,
      url: made?.url,
    });
  },
);

/**
 * Who opens a public page: each opens it once, and each open is counted. The third entry is the
 * User-Agent it opens with, where it names one.
 */
type Visitors = Array<[string, (ctx: CheckContext) => string | null, string?]>;

/**
 * Clients a link is opened from besides a browser: a lab's script, a command line, a mobile app,
 * an intranet portal. "view_count: times the link was opened" names no client, so each counts.
 */
const CLIENTS: Visitors = [
  [
    'no credential, from a browser',
    () => null,
    'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0',
  ],
  ['no credential, from a Python script', () => null, 'python-requests/2.32.3'],
  ['no credential, from curl', () => null, 'curl/8.5.0'],
  ['no credential, from an Android app', () => null, 'okhttp/4.12.0'],
  ['no credential, from a Java portal', () => null, 'Java/17.0.10'],
];

check(
  'the public page opens without credentials, shows the count, and counts each view, whichever client opens it',
  { clauses: ['SHR-08', 'SHR-09', 'SHR-04', 'AUTH-06'] },
  async (ctx) => opensAndCounts(ctx, [['no credential', () => null], ...CLIENTS]),
);

check(
  'the public page opens with a credential it does not need, an unknown key or the owner’s, and counts each view',
  { clauses: ['AUTH-08'] },
  // the interface says shared pages need no credential, not that one sent is ignored: a gateway
  // that refuses a bad key on every route follows it, so this is the suite's reading
  async (ctx) =>
    opensAndCounts(ctx, [
      ['an unknown key', () => 'sk_test_unknown_key_000000000000000000'],
      ["the owner's key", (c) => c.target.keys.main],
    ]),
);

/**
 * The addresses a page's attributes name (href, src, action, data-*) that lead into the target's
 * API, resolved against the page's own address.
 */
function apiLinksOf(ctx: CheckContext, html: string, pageUrl: string): string[] {
  const api = `${ctx.target.baseUrl.replace(/\/+$/, '')}/api/`;
  const values = [...html.matchAll(/\s(?:href|src|action|data-[\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)];
  const links = values.flatMap((m) => {
    try {
      return [new URL((m[1] ?? m[2]).replaceAll('&amp;', '&'), pageUrl).toString()];
    } catch {
      return [];
    }
  });
  return [...new Set(links.filter((link) => link.startsWith(api)))];
}

/** The page and its preview image, opened by each visitor: 200, the cell count, each view counted. */
async function opensAndCounts(ctx: CheckContext, visitors: Visitors): Promise<void> {
  const { share, cellCount } = await sharedSegmentation(ctx);
  const links = new Set<string>();
  for (const [i, [label, key, agent]] of visitors.entries()) {
    const headers = agent ? { 'user-agent': agent } : undefined;
    const page = await ctx.api.raw('GET', share.url!, { key: key(ctx), headers });
    expectStatus(page, 200, `open the share page with ${label} (view ${i + 1})`);
    expect(page.headers.get('content-type'), 'share page: content type').toMatch(/text\/html/);
    const html = await page.text();
    expect(html, 'share page: shows the cell count').toContain(String(cellCount));
    for (const link of apiLinksOf(ctx, html, share.url!)) links.add(link);
  }
  // downloading from the page asks the visitor to sign in: a link it offers into the API, followed
  // as a visitor would, without a credential, is refused (the oracle predicts the 401)
  for (const link of links) await ctx.api.raw('GET', link, { key: null });
  const token = shareToken(share.url!);
  for (const [label, key] of visitors) {
    const preview = await ctx.api.call<Buffer>('viewShareImage', {
      params: { share_token: token },
      key: key(ctx),
    });
    expectStatus(preview, 200, `the share page's preview image, with ${label}`);
    expect(preview.bytes.subarray(0, 8).toString('hex'), 'share preview: PNG signature').toBe(
      '89504e470d0a1a0a',
    );
  }
  const views = visitors.length;
  const read = await ctx.api.call<Share>('getShare', { params: { share_id: share.id } });
  expectStatus(read, 200, `read the share after ${views} views`);
  expect(read.body.view_count, `GET /shares/{id} after ${views} views: view_count`).toBe(views);
  expect(read.body.last_viewed_at, `GET /shares/{id} after ${views} views: last_viewed_at`).toEqual(
    expect.any(String),
  );
}

/**
 * Opens of one link over this far apart (the later sent after the earlier was answered) have
 * last_viewed_at values that differ even when the target keeps seconds only.
 */
const VIEWS_APART_MS = 1100;
/** Opens of one link sent at once, as a link pasted in a chat is previewed by several clients. */
const AT_ONCE = 4;

check(
  'an open counts on its own share only, a later open moves last_viewed_at, and opens at once each count',
  { clauses: ['SHR-09', 'SHR-04'] },
  async (ctx) => {
    // the oracle judges every answer: view_count and last_viewed_at are compared on each read
    const a = await sharedSegmentation(ctx);
    need(await ctx.api.raw('GET', a.share.url!, { key: null }), 200);
    const answeredAt = Date.now();
    const readA = () => ctx.api.call<Share>('getShare', { params: { share_id: a.share.id } });
    need(await readA(), 200);
    // B's segmentation is made after A's first open, so its time counts towards the gap
    const b = await sharedSegmentation(ctx);
    need(await ctx.api.raw('GET', b.share.url!, { key: null }), 200);
    need(await readA(), 200);
    const wait = VIEWS_APART_MS - (Date.now() - answeredAt);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    need(await ctx.api.raw('GET', a.share.url!, { key: null }), 200);
    need(await readA(), 200);
    // overlapping opens: each is one view, so the read after them counts all (a read-increment-write
    // of the count without a lock or an atomic update keeps one of them)
    const opens = Array.from({ length: AT_ONCE }, () => ctx.api.raw('GET', a.share.url!, { key: null }));
    for (const open of await Promise.all(opens)) need(open, 200);
    need(await readA(), 200);
  },
);

check(
  'a link cut short, with one character of its token changed or its letters in another case does not open',
  { clauses: ['SHR-12'] },
  async (ctx) => {
    // the oracle predicts the "no longer available" page for each: a share is found by its whole
    // token as written, never by a prefix, a near match or a match that ignores case
    const { share } = await sharedSegmentation(ctx);
    const url = share.url!;
    const token = shareToken(url);
    const base = url.slice(0, url.length - token.length);
    // a digit for the last character, so this one is a changed character even to a case-blind eye
    const changed = token.slice(0, -1) + (token.at(-1) === '0' ? '1' : '0');
    // every letter's case swapped: what a mail client or a shortener that folds case hands on
    const swapped = [...token]
      .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
      .join('');
    const mangledTokens = [token.slice(0, Math.ceil(token.length / 2)), token.slice(0, -1), changed];
    for (const mangled of swapped === token ? mangledTokens : [...mangledTokens, swapped])
      expectStatus(
        await ctx.api.raw('GET', base + mangled, { key: null }),
        404,
        `the link ${base}${mangled}`,
      );
    need(await ctx.api.raw('GET', url, { key: null }), 200);
  },
);

check('revoking a revoked share answers the same share again', { clauses: ['SHR-11'] }, async (ctx) => {
  // The document's choice, judged here alone: the oracle accepts any answer but a 5xx to a second
  // revoke (the interface does not show it), since stated checks revoke again when they clean up.
  const { share } = await sharedSegmentation(ctx);
  expectStatus(
    await ctx.api.call<Share>('revokeShare', { params: { share_id: share.id } }),
    [200, 202, 204],
    'revoke the share',
  );
  // judged, not a step: the second revoke's answer is what this clause is about
  const again = await ctx.api.call<Share>('revokeShare', { params: { share_id: share.id } });
  expectStatus(again, 200, 'revoke the share again');
  expect(
    { id: again.body.id, revoked_at: again.body.revoked_at },
    'DELETE /shares/{id} of a revoked share: the same share, revoked',
  ).toEqual({ id: share.id, revoked_at: expect.any(String) });
});

check(
  'revoking turns the link off, keeps the share readable, and a new share gets a new link',
  { clauses: ['SHR-05', 'SHR-06', 'SHR-07'] },
  async (ctx) => {
    const { segmentationId, share } = await sharedSegmentation(ctx);
    // viewed once before the revoke, so the revoke's answer has a last view to agree on
    expectStatus(await ctx.api.raw('GET', share.url!, { key: null }), 200, 'open the share page once');
    const before = need(await ctx.api.call<Share>('getShare', { params: { share_id: share.id } }), 200);
    const revoked = await ctx.api.call<Share>('revokeShare', { params: { share_id: share.id } });
    expectStatus(revoked, [200, 201, 202, 204], 'revoke the share');
    if (revoked.status === 200)
      expect(
        { ...revoked.body, revoked_at: undefined, url: undefined },
        'DELETE /shares/{id}: the share it revoked, as GET /shares/{id} read it before',
      ).toEqual({ ...before.body, revoked_at: undefined, url: undefined });
    const read = await ctx.api.call<Share>('getShare', { params: { share_id: share.id } });
    expectStatus(read, 200, 'read the share after revoking it');
    expect(read.body.revoked_at, 'GET /shares/{id} after revoke: revoked_at').toEqual(expect.any(String));
    expectStatus(
      await ctx.api.call('viewShareImage', { params: { share_token: shareToken(share.url!) }, key: null }),
      404,
      "the revoked link's preview image",
    );
    const page = await ctx.api.raw('GET', share.url!, { key: null });
    // the share page documents 200 and 404 alone: a link that no longer opens answers the 404 page
    expectStatus(page, 404, 'viewSharePage of a revoked link');
    expect(page.headers.get('content-type'), 'viewSharePage 404: content type').toMatch(/^text\/html/);
    expect(await page.text(), 'viewSharePage 404: the "no longer available" page').toMatch(
      /no longer available/i,
    );
    expect(
      need(await ctx.api.call<Share>('getShare', { params: { share_id: share.id } }), 200).body.view_count,
      'GET /shares/{id}: view_count after opening the revoked link',
    ).toBe(read.body.view_count);
    const fresh = await ctx.api.call<Share>('createShare', { body: { segmentation_id: segmentationId } });
    expectStatus(fresh, 200, 'share again after revoking');
    if (fresh.status === 200) trackShare(ctx, fresh.body.id, segmentationId);
    expect(fresh.body.id, 'POST /shares after revoke: id, not the revoked one').not.toBe(share.id);
    expect(fresh.body.url, 'POST /shares after revoke: url, not the revoked one').not.toBe(share.url);
    expectStatus(
      await ctx.api.raw('GET', share.url!, { key: null }),
      404,
      'the revoked link after a new share',
    );
    expectStatus(await ctx.api.raw('GET', fresh.body.url!, { key: null }), 200, 'the new link');
  },
);

check(
  'shares answer 404 for an unknown segmentation or share, 422 with a string detail for bad ids',
  { clauses: ['SHR-10', 'VAL-03', 'VAL-04'] },
  async ({ api }) => {
    const unknown = await api.call<{ detail: unknown }>('createShare', {
      body: { segmentation_id: randomUUID() },
    });
    expectStatus(unknown, 404, 'share an unknown segmentation');
    expectStatus(await api.call('getShare', { params: { share_id: randomUUID() } }), 404, 'an unknown share');
    const bad = await api.call<{ detail: unknown }>('createShare', { body: { segmentation_id: 'nope' } });
    expectStatus(bad, 422, 'share a non-UUID segmentation id');
    expect(typeof bad.body.detail, 'createShare 422: type of detail').toBe('string');
  },
);
