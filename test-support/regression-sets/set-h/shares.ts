import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import { bearer, caller, isJson, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import { requestJson } from './kit.js';

const SHARE = /^\/api\/v1\/shares\/([^/]+)$/;
const PAGE = /^\/share\/([^/]+)$/;

/** A share answer (POST /shares, GET or DELETE /shares/{id}) edited in place. */
function editShare(exchange: Exchange, answer: Answer, edit: (share: Record<string, unknown>) => void): void {
  const route =
    match(exchange, 'POST', /^\/api\/v1\/shares$/) ||
    match(exchange, 'GET', SHARE) ||
    match(exchange, 'DELETE', SHARE);
  if (!route || answer.status !== 200 || !isJson(answer)) return;
  const share = readJson(answer);
  if (typeof share.id !== 'string') return;
  edit(share);
  writeJson(answer, share);
}

/** Link previewers, monitors and scripts, which a "do not count bots" filter skips. */
const BOT = /bot|crawl|spider|preview|curl|wget|python|okhttp|go-http|java|axios|httpclient/i;

interface Uncounted {
  views: number;
  lastViewedAt: unknown;
}

async function shareOfToken(
  state: ProxyState,
  token: string,
): Promise<{ id: string; key: string } | undefined> {
  return memoMap<string, { id: string; key: string }>(state, 'tokens').get(token);
}

export const SHARES: Regression[] = [
  {
    id: 'H-SH-REPOST-MOVES-CREATED-AT',
    area: 'shares',
    description:
      'POST /shares for a segmentation with a live share upserts the row with `created_at = now()` in its SET list: the same share (id and url) comes back, but its `created_at` moves to the time of every repeat, in every later read too',
    violates: '"live | `POST /shares` again for the same segmentation | live | returns the same share"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const created = memoMap<string, string>(state, 'created-at');
      const repost = match(exchange, 'POST', /^\/api\/v1\/shares$/);
      editShare(exchange, answer, (share) => {
        const id = String(share.id);
        if (repost && share.revoked_at === null) {
          if (created.has(id)) created.set(id, new Date().toISOString());
          else created.set(id, String(share.created_at));
        }
        if (created.has(id)) share.created_at = created.get(id);
      });
    },
  },
  {
    id: 'H-SH-RESHARE-409',
    area: 'shares',
    description:
      'The one-live-share rule is a unique index on `segmentation_id` created without its `WHERE revoked_at IS NULL`: after a revoke, POST /shares for the same segmentation hits the index and is refused 409 "A share already exists for this segmentation", and no new link can ever be made',
    violates: '"revoked | `POST /shares` for the same segmentation | new live share | a new link is created"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/shares$/) || !caller(exchange, state)) return;
      const segmentation = String(requestJson(exchange).segmentation_id ?? '').toLowerCase();
      if (memoMap<string, true>(state, 'revoked-segmentations').has(segmentation))
        return jsonAnswer(409, { detail: 'A share already exists for this segmentation' });
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'DELETE', SHARE) || answer.status !== 200 || !isJson(answer)) return;
      const segmentation = readJson(answer).segmentation_id;
      if (typeof segmentation === 'string')
        memoMap<string, true>(state, 'revoked-segmentations').set(segmentation.toLowerCase(), true);
    },
  },
  {
    id: 'H-SH-BOT-FILTER-TOO-WIDE',
    area: 'shares',
    description:
      "The page skips counting views from user agents matching a bot list that also holds `python`, `curl`, `okhttp`, `java`, `axios`: a link opened from a lab's script, a mobile app or an intranet portal counts nothing and leaves `last_viewed_at` as it was",
    violates: '"`view_count` | integer | yes | times the link was opened"',
    statedIn: 'interface',
    async request(exchange, state) {
      const token = match(exchange, 'GET', PAGE)?.[1];
      if (!token) return;
      const share = await shareOfToken(state, token);
      if (!share) return;
      const uncounted = memoMap<string, Uncounted>(state, 'uncounted');
      if (!BOT.test(exchange.headers.get('user-agent') ?? '')) {
        const held = uncounted.get(share.id);
        if (held) held.lastViewedAt = undefined;
        return;
      }
      const before = await state.upstream('GET', `/api/v1/shares/${share.id}`, { key: share.key });
      const page = await state.resend(exchange);
      if (page.status === 200 && before.status === 200) {
        const held = uncounted.get(share.id) ?? { views: 0, lastViewedAt: undefined };
        held.views += 1;
        if (held.lastViewedAt === undefined) held.lastViewedAt = readJson(before).last_viewed_at;
        uncounted.set(share.id, held);
      }
      return page;
    },
    response(exchange, answer, state) {
      editShare(exchange, answer, (share) => {
        if (typeof share.url === 'string') {
          const token = share.url.split('/share/')[1];
          const key = bearer(exchange);
          if (token && key)
            memoMap<string, { id: string; key: string }>(state, 'tokens').set(token, {
              id: String(share.id),
              key,
            });
        }
        const held = memoMap<string, Uncounted>(state, 'uncounted').get(String(share.id));
        if (!held) return;
        share.view_count = Math.max(0, Number(share.view_count) - held.views);
        if (held.lastViewedAt !== undefined) share.last_viewed_at = held.lastViewedAt;
      });
    },
  },
  {
    id: 'H-SH-REVOKE-204',
    area: 'shares',
    description:
      'DELETE /shares/{id} answers 204 with no body (the REST default of the new router) instead of 200 with the revoked share: a client that reads `revoked_at` from the answer finds nothing',
    violates:
      'DELETE /shares/{share_id}: "Response body and code are not shown; 200 with the Share." (`x-assumed`)',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'DELETE', SHARE) || answer.status !== 200) return;
      answer.status = 204;
      answer.body = Buffer.alloc(0);
      delete answer.headers['content-type'];
    },
  },
  {
    id: 'H-SH-REVOKED-LINK-410',
    area: 'shares',
    description:
      'The page tells a revoked link from an unknown one and answers it 410 Gone ("This link was turned off"): a revoked link no longer answers the 404 the document gives every dead link, and confirms to anyone holding it that the share existed',
    violates:
      'GET /share/{share_token}: "A revoked or unknown token shows a \'no longer available\' page with status 404 and counts nothing."',
    statedIn: 'document',
    async response(exchange, answer, state) {
      const token = match(exchange, 'GET', PAGE)?.[1];
      const revoked = memoMap<string, true>(state, 'revoked-tokens');
      if (match(exchange, 'DELETE', SHARE) && answer.status === 200 && isJson(answer)) {
        const url = readJson(answer).url;
        const dead = typeof url === 'string' ? url.split('/share/')[1] : undefined;
        if (dead) revoked.set(dead, true);
        return;
      }
      if (token && answer.status === 404 && revoked.has(token)) answer.status = 410;
    },
  },
];
