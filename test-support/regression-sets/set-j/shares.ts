import { randomUUID } from 'node:crypto';
import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import { bearer, jsonAnswer, match, memoMap, pathname, writeJson } from '../edit-helpers.js';
import {
  canonicalId,
  errorAnswer,
  inFlight,
  newShareToken,
  okJson,
  orgOf,
  replaceAnswer,
  requestJson,
  ROUTES,
  shareToken,
  storedPredictions,
  type Json,
} from './kit.js';

/** The Share an answer of the share routes carries (POST /shares, GET or DELETE /shares/{id}), or null. */
function shareIn(exchange: Exchange, answer: Answer): Json | null {
  const path = pathname(exchange);
  if (!ROUTES.shares.test(path) && !ROUTES.share.test(path)) return null;
  const body = okJson(answer);
  return body && typeof body.id === 'string' && typeof body.segmentation_id === 'string' ? body : null;
}

/** A second live share the backend made for another key of the organization, beside the real one. */
interface ExtraShare {
  share: Json;
  realId: string;
  realToken: string;
  orgId: string;
}

/** GET or DELETE /shares/{id} of an extra share: answered from the backend's second row. */
async function extraShareCall(exchange: Exchange, state: ProxyState): Promise<Answer | undefined> {
  const found = pathname(exchange).match(ROUTES.share);
  const extra = found && memoMap<string, ExtraShare>(state, 'extra-shares').get(canonicalId(found[1]));
  if (!extra || !['GET', 'DELETE'].includes(exchange.method)) return undefined;
  if (orgOf(exchange, state)?.id !== extra.orgId) return errorAnswer(404, 'Share not found');
  const stored = await storedPredictions(state, extra.orgId);
  if (!stored.some((run) => run.shares?.some((share) => share.id === extra.realId)))
    return errorAnswer(404, 'Share not found');
  if (exchange.method === 'DELETE' && extra.share.revoked_at == null)
    extra.share.revoked_at = new Date().toISOString();
  return jsonAnswer(200, extra.share);
}

/** The share page (or its image) of an extra share: the real one's, or a dead link once revoked. */
function extraSharePage(exchange: Exchange, state: ProxyState): void {
  const page = exchange.method === 'GET' ? pathname(exchange).match(ROUTES.sharePage) : null;
  const extra = page && memoMap<string, ExtraShare>(state, 'extra-by-token').get(page[1]);
  if (!page || !extra) return;
  if (!page[2]) memoMap<Exchange, ExtraShare>(state, 'extra-page').set(exchange, extra);
  const token = extra.share.revoked_at == null ? extra.realToken : `revoked-${page[1]}`;
  exchange.path = `/share/${token}${page[2] ?? ''}`;
}

/** POST /shares by a key other than the one that made the live share: a second live share of its own. */
function secondKeyShare(exchange: Exchange, answer: Answer, state: ProxyState): void {
  const key = bearer(exchange);
  const body = match(exchange, 'POST', ROUTES.shares) ? okJson(answer) : null;
  const org = orgOf(exchange, state);
  if (!body || !key || !org || typeof body.id !== 'string') return;
  const byKey = memoMap<string, ExtraShare>(state, 'extra-by-key');
  const mine = byKey.get(`${canonicalId(body.segmentation_id)}|${key}`);
  if (mine && mine.share.revoked_at == null) return writeJson(answer, mine.share);
  const firstKey = memoMap<string, string>(state, 'first-key');
  const first = firstKey.get(body.id);
  if (!first) firstKey.set(body.id, key);
  if (!first || first === key || body.revoked_at != null) return;
  const token = newShareToken();
  const realToken = shareToken(body.url);
  const share: Json = {
    ...body,
    id: randomUUID(),
    url: String(body.url).replace(realToken, token),
    view_count: 0,
    last_viewed_at: null,
    created_at: new Date().toISOString(),
    revoked_at: null,
  };
  const extra = { share, realId: body.id, realToken, orgId: org.id };
  byKey.set(`${canonicalId(body.segmentation_id)}|${key}`, extra);
  memoMap<string, ExtraShare>(state, 'extra-shares').set(share.id as string, extra);
  memoMap<string, ExtraShare>(state, 'extra-by-token').set(token, extra);
  writeJson(answer, share);
}

/** A share as the view counter sees it. */
interface KnownShare {
  id: string;
  segmentation: string;
  token: string;
  createdAt: string;
}

/** Opens of a newer share's link that were counted on the oldest share of its segmentation. */
interface MovedViews {
  to: string;
  count: number;
  lastAt: string;
}

/** A share answer with the views the page counted on the wrong row moved where they were counted. */
function moveViews(share: Json, state: ProxyState): void {
  const moved = memoMap<string, MovedViews>(state, 'moved-views');
  const own = moved.get(share.id as string);
  if (own) {
    share.view_count = Math.max(0, Number(share.view_count) - own.count);
    if (share.view_count === 0) share.last_viewed_at = null;
  }
  for (const views of moved.values()) {
    if (views.to !== share.id) continue;
    share.view_count = Number(share.view_count) + views.count;
    if (!share.last_viewed_at || String(share.last_viewed_at) < views.lastAt)
      share.last_viewed_at = views.lastAt;
  }
}

/** An open of a share page, counted on the oldest share of the same segmentation. */
function countOnOldest(token: string, state: ProxyState): void {
  const known = [...memoMap<string, KnownShare>(state, 'known-shares').values()];
  const opened = known.find((share) => share.token === token);
  if (!opened) return;
  const older = known
    .filter((share) => share.segmentation === opened.segmentation && share.createdAt < opened.createdAt)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (!older.length) return;
  const moved = memoMap<string, MovedViews>(state, 'moved-views');
  const views = moved.get(opened.id) ?? { to: older[0].id, count: 0, lastAt: '' };
  views.count++;
  views.lastAt = new Date().toISOString();
  moved.set(opened.id, views);
}

/** Set J, shares and the public page. */
export const SHARES: Regression[] = [
  {
    id: 'J-SH-SECOND-KEY-NEW-SHARE',
    area: 'shares',
    description:
      'The live-share lookup that makes POST /shares idempotent filters on the key that made the share: the same segmentation shared with another key of the organization gets a second live share, with a link of its own, beside the first',
    violates: '"Idempotent: a segmentation has at most one live link; repeating returns the same share."',
    statedIn: 'interface',
    async request(exchange, state) {
      extraSharePage(exchange, state);
      return extraShareCall(exchange, state);
    },
    response(exchange, answer, state) {
      const pages = memoMap<Exchange, ExtraShare>(state, 'extra-page');
      const page = pages.get(exchange);
      pages.delete(exchange);
      if (page && answer.status === 200) {
        page.share.view_count = Number(page.share.view_count) + 1;
        page.share.last_viewed_at = new Date().toISOString();
      }
      secondKeyShare(exchange, answer, state);
    },
  },
  {
    id: 'J-SH-CONCURRENT-POST-409',
    area: 'shares',
    description:
      'POST /shares for a segmentation with no live share inserts without taking a lock, and the unique index on live shares refuses the losers of a race: when a segmentation is shared by several requests at once, one gets the share and the others 409 "A live share already exists for this segmentation"',
    violates: '"live | `POST /shares` again for the same segmentation | live | returns the same share"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', ROUTES.shares)) return;
      inFlight(state, 'share').enter(exchange, canonicalId(requestJson(exchange).segmentation_id));
      const known = memoMap<string, true>(state, 'known-share-ids');
      memoMap<Exchange, Set<string>>(state, 'known-then').set(exchange, new Set(known.keys()));
    },
    response(exchange, answer, state) {
      const share = shareIn(exchange, answer);
      const knownThen = memoMap<Exchange, Set<string>>(state, 'known-then');
      const before = knownThen.get(exchange);
      knownThen.delete(exchange);
      const concurrent = inFlight(state, 'share').leave(exchange);
      if (!share) return;
      memoMap<string, true>(state, 'known-share-ids').set(share.id as string, true);
      if (concurrent && before && !before.has(share.id as string))
        replaceAnswer(answer, errorAnswer(409, 'A live share already exists for this segmentation'));
    },
  },
  {
    id: 'J-SH-VIEW-COUNTED-ON-OLD-SHARE',
    area: 'shares',
    description:
      "The page's view counter updates the share row it finds by segmentation (`WHERE segmentation_id = ? ORDER BY created_at LIMIT 1`), not by token: after a revoke and a new share, every open of the new link is counted on the revoked share, whose `view_count` and `last_viewed_at` move while the live one's stay at 0 and null",
    violates: '"`view_count` | integer | yes | times the link was opened" (the link of that share)',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const page = exchange.method === 'GET' ? pathname(exchange).match(ROUTES.sharePage) : null;
      if (page && !page[2] && answer.status === 200) return countOnOldest(page[1], state);
      const share = shareIn(exchange, answer);
      if (!share) return;
      memoMap<string, KnownShare>(state, 'known-shares').set(share.id as string, {
        id: share.id as string,
        segmentation: canonicalId(share.segmentation_id),
        token: shareToken(share.url),
        createdAt: String(share.created_at),
      });
      moveViews(share, state);
      writeJson(answer, share);
    },
  },
  {
    id: 'J-SH-REVOKE-HIDES-EXPORTS',
    area: 'shares',
    description:
      'Revoking a share clears the segmentation\'s `published` flag, which the export routes also filter on: once a result\'s share is turned off, every export of that segmentation answers 404 "Segmentation not found" to its own organization (until it is shared again)',
    violates:
      '"All exports are for a completed segmentation in the caller\'s organization" (revoking only turns the link off)',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'GET', ROUTES.export);
      if (found && memoMap<string, true>(state, 'unpublished').has(canonicalId(found[1])))
        return errorAnswer(404, 'Segmentation not found');
    },
    response(exchange, answer, state) {
      const share = shareIn(exchange, answer);
      if (!share) return;
      const unpublished = memoMap<string, true>(state, 'unpublished');
      const segmentation = canonicalId(share.segmentation_id);
      if (exchange.method === 'DELETE') unpublished.set(segmentation, true);
      else if (exchange.method === 'POST' && share.revoked_at == null) unpublished.delete(segmentation);
    },
  },
];
