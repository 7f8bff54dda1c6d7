import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import { bearer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import { okJson, shareToken, type Json } from './kit.js';

const UUID = '([0-9a-fA-F-]{36})';
const SHARE_READ = new RegExp(`^/api/v1/shares/${UUID}$`);

/** A share answered by the API (POST /shares, GET or DELETE /shares/{id}), or null. */
function shareAnswer(exchange: Exchange, answer: Answer): Json | null {
  const path = exchange.path.split('?')[0];
  if (!/^\/api\/v1\/shares(?:\/[^/]+)?$/.test(path)) return null;
  const body = okJson(answer);
  return body && typeof body.view_count === 'number' ? body : null;
}

interface HeldView {
  token: string;
  lastViewedAt: unknown;
}

const repeatVisits = new WeakMap<Exchange, HeldView>();

function visitor(exchange: Exchange, token: string): string {
  const from = exchange.headers.get('x-forwarded-for') ?? '127.0.0.1';
  return `${token}|${from}|${exchange.headers.get('user-agent') ?? ''}`;
}

function pageToken(exchange: Exchange): string | null {
  return match(exchange, 'GET', /^\/share\/([^/]+)$/)?.[1] ?? null;
}

async function shareOfToken(state: ProxyState, token: string): Promise<Json | null> {
  const known = memoMap<string, { id: string; key: string }>(state, 'token-share').get(token);
  if (!known) return null;
  const read = await state.upstream('GET', `/api/v1/shares/${known.id}`, { key: known.key });
  return read.status === 200 ? readJson<Json>(read) : null;
}

/** Shares: the API's answers and the public page they link to. */
export const SHARES: Regression[] = [
  {
    id: 'I-SH-POST-201-ON-CREATE',
    area: 'shares',
    description:
      'POST /shares answers 201 Created when it makes the share (the REST habit of the new router) and 200 only when it returns the live one: a client that checks for 200 takes every first share of a segmentation for a failure',
    violates: '"Response 200: Share." and "Known: 200 for `POST /shares`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/shares$/)) return;
      const share = okJson(answer);
      if (!share || typeof share.id !== 'string') return;
      const made = memoMap<string, true>(state, 'shares-made');
      if (made.has(share.id)) return;
      made.set(share.id, true);
      answer.status = 201;
    },
  },
  {
    id: 'I-SH-VIEWS-DEDUPED-PER-VISITOR',
    area: 'shares',
    description:
      'The page counts a view once per visitor (address and user agent) per day, an analytics "unique visitors" rule: a link opened again from the same machine, or by every person behind one lab proxy, adds nothing to `view_count` and leaves `last_viewed_at` at the first open',
    violates: '"`view_count` | integer | yes | times the link was opened"',
    statedIn: 'interface',
    async request(exchange, state) {
      const token = pageToken(exchange);
      if (!token || !memoMap<string, true>(state, 'visitors').has(visitor(exchange, token))) return;
      const before = await shareOfToken(state, token);
      repeatVisits.set(exchange, { token, lastViewedAt: before?.last_viewed_at ?? null });
    },
    response(exchange, answer, state) {
      const token = pageToken(exchange);
      const repeats = memoMap<string, HeldView & { count: number }>(state, 'repeat-views');
      if (token) {
        if (answer.status !== 200) return;
        const held = repeatVisits.get(exchange);
        if (!held) return void memoMap<string, true>(state, 'visitors').set(visitor(exchange, token), true);
        const count = (repeats.get(token)?.count ?? 0) + 1;
        repeats.set(token, { ...(repeats.get(token) ?? held), count });
        return;
      }
      const share = shareAnswer(exchange, answer);
      const shareTok = shareToken(share?.url);
      if (!share || !shareTok) return;
      const key = bearer(exchange);
      if (key) memoMap(state, 'token-share').set(shareTok, { id: share.id, key });
      const repeated = repeats.get(shareTok);
      if (!repeated) return;
      writeJson(answer, {
        ...share,
        view_count: Math.max(0, Number(share.view_count) - repeated.count),
        last_viewed_at: repeated.lastViewedAt,
      });
    },
  },
  {
    id: 'I-SH-READ-URL-TRUNCATED',
    area: 'shares',
    description:
      'The share token is kept in a VARCHAR(32) column that cuts it, while POST /shares answers the url built from the token in memory: the url GET /shares/{id} answers ends 32 characters into the token and opens the "no longer available" page',
    violates:
      '"`url` | string or null | no | link to send, `{share_base_url}/share/<share_token>`; anyone holding it can view"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', SHARE_READ)) return;
      const share = okJson(answer);
      const token = shareToken(share?.url);
      if (!share || !token || token.length <= 32) return;
      writeJson(answer, { ...share, url: String(share.url).replace(token, token.slice(0, 32)) });
    },
  },
  {
    id: 'I-SH-ACCESS-PUBLIC-ON-READ',
    area: 'shares',
    description:
      'Share reads map the stored access through the old enum, in which `anyone_with_link` was called `public`: GET /shares/{id} answers `access: "public"` while POST /shares (which echoes the request\'s model) says `anyone_with_link`',
    violates: '"`access` | enum `anyone_with_link`, `user` | yes | always `anyone_with_link` today"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', SHARE_READ)) return;
      const share = okJson(answer);
      if (share?.access !== 'anyone_with_link') return;
      writeJson(answer, { ...share, access: 'public' });
    },
  },
];
