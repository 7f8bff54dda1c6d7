import { bearer, copyAnswer, isJson, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Regression } from '../regression.js';

interface Share {
  id: string;
  segmentation_id: string;
  url?: string | null;
  view_count: number;
  last_viewed_at?: string | null;
  revoked_at?: string | null;
}

const SHARES = /^\/api\/v1\/shares$/;
const SHARE = /^\/api\/v1\/shares\/([^/]+)$/;
const SHARE_PAGE = /^\/share\/([^/]+)$/;

/** The share token at the end of a share's `url`. */
function tokenOf(share: Share): string | undefined {
  return share.url?.split('/share/')[1];
}

/** Shares of a segmentation and their public pages. */
export const SHARE_REGRESSIONS: Regression[] = [
  {
    id: 'B-SH-NEW-SHARE-EACH-POST',
    area: 'shares',
    description:
      'POST /shares is not idempotent any more: a repeat revokes the live link and makes a new one (a "rotate on share" change)',
    violates: '"Idempotent: a segmentation has at most one live link; repeating returns the same share."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', SHARES) || answer.status !== 200 || !isJson(answer)) return;
      const share = readJson<Share>(answer);
      const seen = memoMap<string, string>(state, 'shares');
      const apiKey = bearer(exchange);
      const segmentation = `${apiKey} ${share.segmentation_id}`;
      if (seen.get(segmentation) === share.id && !share.revoked_at) {
        await state.upstream('DELETE', `/api/v1/shares/${share.id}`, { key: apiKey });
        Object.assign(answer, await state.resend(exchange));
      }
      if (answer.status === 200) seen.set(segmentation, readJson<Share>(answer).id);
    },
  },
  {
    id: 'B-SH-VIEW-COUNT-CACHED',
    area: 'shares',
    description:
      'GET /shares/{id} is served from a cache filled at the first read: `view_count` and `last_viewed_at` never move',
    violates:
      '"GET `/api/v1/shares/{share_id}` - Response: Share including `view_count`" / "`view_count` | integer | times the link was opened"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const found = match(exchange, 'GET', SHARE);
      if (!found || answer.status !== 200 || !isJson(answer)) return;
      const cache = memoMap<string, Share>(state, 'share-reads');
      const first = cache.get(found[1]);
      if (!first) return void cache.set(found[1], readJson<Share>(answer));
      const share = readJson<Share>(answer);
      writeJson(answer, {
        ...share,
        view_count: first.view_count,
        last_viewed_at: first.last_viewed_at ?? null,
      });
    },
  },
  {
    id: 'B-SH-REVOKED-PAGE-CACHED',
    area: 'shares',
    description:
      'The public page is cached by token at the edge and not purged on revoke: a revoked link still opens',
    violates: '"live | `DELETE /shares/{share_id}` | revoked (`revoked_at` set) | link no longer opens"',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'GET', SHARE_PAGE);
      if (!found) return;
      const cached = memoMap<string, Answer>(state, 'pages').get(found[1]);
      if (cached && memoMap<string, true>(state, 'revoked').has(found[1])) return copyAnswer(cached);
    },
    response(exchange, answer, state) {
      const page = match(exchange, 'GET', SHARE_PAGE);
      if (page && answer.status === 200)
        memoMap<string, Answer>(state, 'pages').set(page[1], copyAnswer(answer));
      if (match(exchange, 'DELETE', SHARE) && answer.status < 300 && isJson(answer)) {
        const token = tokenOf(readJson<Share>(answer));
        if (token) memoMap<string, true>(state, 'revoked').set(token, true);
      }
    },
  },
  {
    id: 'B-SH-REVOKED-READ-404',
    area: 'shares',
    description:
      'GET /shares/{id} filters on live shares: a revoked share answers 404 instead of showing `revoked_at`',
    violates:
      '"revoked (`revoked_at` set) | link no longer opens; share still readable via `GET /shares/{share_id}`"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', SHARE) || answer.status !== 200 || !isJson(answer)) return;
      if (!readJson<Share>(answer).revoked_at) return;
      answer.status = 404;
      writeJson(answer, { detail: 'Share not found' });
    },
  },
  {
    id: 'B-SH-REPOST-RETURNS-REVOKED',
    area: 'shares',
    description:
      'After a revoke, POST /shares finds the old share by segmentation and answers it, revoked: no new link is made',
    violates: '"revoked | `POST /shares` for the same segmentation | new live share | a new link is created"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', SHARES) || answer.status !== 200 || !isJson(answer)) return;
      const share = readJson<Share>(answer);
      const first = memoMap<string, string>(state, 'first-share');
      const key = `${bearer(exchange)} ${share.segmentation_id}`;
      const oldId = first.get(key);
      if (!oldId) return void first.set(key, share.id);
      if (oldId === share.id) return;
      const old = await state.upstream('GET', `/api/v1/shares/${oldId}`, { key: bearer(exchange) });
      if (old.status === 200) Object.assign(answer, old);
    },
  },
  {
    id: 'B-SH-DEAD-LINK-COUNTS-VIEW',
    area: 'shares',
    description: 'Opening a revoked link increments `view_count` before the page finds the share dead',
    violates:
      'viewSharePage (x-assumed): "A revoked or unknown token shows a \\"no longer available\\" page with status 404 and counts nothing."',
    statedIn: 'document',
    response(exchange, answer, state) {
      const dead = memoMap<string, number>(state, 'dead-opens');
      const page = match(exchange, 'GET', SHARE_PAGE);
      if (page && answer.status === 404) return void dead.set(page[1], (dead.get(page[1]) ?? 0) + 1);
      if (!match(exchange, 'GET', SHARE) || answer.status !== 200 || !isJson(answer)) return;
      const share = readJson<Share>(answer);
      const opens = dead.get(tokenOf(share) ?? '') ?? 0;
      if (opens) writeJson(answer, { ...share, view_count: share.view_count + opens });
    },
  },
  {
    id: 'B-SH-URL-INTERNAL-HOST',
    area: 'shares',
    description:
      "The share `url` is built from the request's internal host (the app server behind the load balancer), not the public share address",
    violates:
      '"`url` | string or null | link to send, `{share_base_url}/share/<share_token>`; anyone holding it can view"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!(
        match(exchange, 'POST', SHARES) ??
        match(exchange, 'GET', SHARE) ??
        match(exchange, 'DELETE', SHARE)
      ))
        return;
      if (answer.status !== 200 || !isJson(answer)) return;
      const share = readJson<Share>(answer);
      if (!share.url) return;
      writeJson(answer, { ...share, url: share.url.replace(state.self, 'http://10.0.3.7:8000') });
    },
  },
];
