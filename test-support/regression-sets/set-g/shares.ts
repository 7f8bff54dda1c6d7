import { bearer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Exchange, Regression } from '../regression.js';
import { isShareAnswer, noteShare, sharesByToken, tokenOf, UUID, type ShareBody } from './state.js';

const PAGE = /^\/share\/([^/]+)$/;

function pageToken(exchange: Exchange): string | undefined {
  return exchange.method === 'GET' ? exchange.path.split('?')[0].match(PAGE)?.[1] : undefined;
}

export const SHARES: Regression[] = [
  {
    id: 'G-SH-LAST-VIEWED-FIRST-ONLY',
    area: 'shares',
    description:
      "Opening the page sets `last_viewed_at = COALESCE(last_viewed_at, now())`: it keeps the first view's time for ever, while `view_count` goes on counting",
    violates:
      '"`view_count` | integer | yes | times the link was opened" / "`last_viewed_at` | date-time or null" (the last time it was opened)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const first = memoMap<string, string>(state, 'g-sh-first-view');
      const token = pageToken(exchange);
      if (token && answer.status === 200) {
        const share = sharesByToken(state).get(token);
        if (share && !first.has(share.id)) {
          const read = await state.upstream('GET', `/api/v1/shares/${share.id}`, { key: share.key });
          if (read.status === 200) first.set(share.id, String(readJson<ShareBody>(read).last_viewed_at));
        }
        return;
      }
      const share = noteShare(exchange, answer, state);
      const kept = share && first.get(share.id);
      if (share && kept) writeJson(answer, { ...share, last_viewed_at: kept });
    },
  },
  {
    id: 'G-SH-CONCURRENT-VIEWS-LOST',
    area: 'shares',
    description:
      'The page counts a view as read-increment-write of `view_count` without a lock or an atomic UPDATE: opens of the link that overlap (a link pasted in a chat, previewed by several clients at once) count as one',
    violates: '"`view_count` | integer | yes | times the link was opened"',
    statedIn: 'interface',
    request(exchange, state) {
      const token = pageToken(exchange);
      if (!token) return;
      const open = memoMap<string, number>(state, 'g-sh-open');
      const now = open.get(token) ?? 0;
      if (now > 0) memoMap<Exchange, boolean>(state, 'g-sh-overlapped').set(exchange, true);
      open.set(token, now + 1);
    },
    response(exchange, answer, state) {
      const lost = memoMap<string, number>(state, 'g-sh-lost');
      const token = pageToken(exchange);
      if (token) {
        const open = memoMap<string, number>(state, 'g-sh-open');
        open.set(token, Math.max(0, (open.get(token) ?? 1) - 1));
        const overlapped = memoMap<Exchange, boolean>(state, 'g-sh-overlapped');
        if (overlapped.get(exchange) && answer.status === 200) lost.set(token, (lost.get(token) ?? 0) + 1);
        overlapped.delete(exchange);
        return;
      }
      if (!isShareAnswer(exchange, answer)) return;
      const share = readJson<ShareBody>(answer);
      const missed = lost.get(tokenOf(share.url) ?? '') ?? 0;
      if (missed) writeJson(answer, { ...share, view_count: Math.max(0, share.view_count - missed) });
    },
  },
  {
    id: 'G-SH-RESHARE-INHERITS-VIEWS',
    area: 'shares',
    description:
      "Sharing again after a revoke builds the new share from the revoked row (a copy with a new id, token and revoked_at cleared): the new link starts with the old link's `view_count` and `last_viewed_at`",
    violates:
      '"revoked | `POST /shares` for the same segmentation | new live share | a new link is created" and "`view_count` | times the link was opened" (the new link was never opened)',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!isShareAnswer(exchange, answer)) return;
      const revoked = memoMap<string, ShareBody>(state, 'g-sh-revoked-by-seg');
      const inherited = memoMap<string, ShareBody>(state, 'g-sh-inherited');
      const share = readJson<ShareBody>(answer);
      if (match(exchange, 'DELETE', new RegExp(`^/api/v1/shares/${UUID}$`))) {
        revoked.set(share.segmentation_id, share);
        return;
      }
      if (match(exchange, 'POST', /^\/api\/v1\/shares$/)) {
        const old = revoked.get(share.segmentation_id);
        if (old && old.id !== share.id && !inherited.has(share.id)) inherited.set(share.id, old);
      }
      const from = inherited.get(share.id);
      if (!from) return;
      writeJson(answer, {
        ...share,
        view_count: share.view_count + from.view_count,
        last_viewed_at: share.last_viewed_at ?? from.last_viewed_at,
      });
    },
  },
  {
    id: 'G-SH-PAGE-DOWNLOADS-CARRY-KEY',
    area: 'shares',
    description:
      "The share page's download buttons were turned into direct links signed with the sharer's API key (`?api_key=`): any visitor downloads every export without signing in, and holds a working key of the organization",
    violates:
      '"Public page: anyone with `url` can view the image, cell outlines and counts without an account; nothing on it edits the result; downloading from it asks the visitor to sign in."',
    statedIn: 'interface',
    request(exchange) {
      const found =
        exchange.method === 'GET'
          ? exchange.path.match(/^\/api\/v1\/export\/[^?]+\?(?:.*&)?api_key=([^&]+)/)
          : null;
      if (!found || bearer(exchange)) return;
      try {
        exchange.headers.set('authorization', `Bearer ${decodeURIComponent(found[1])}`);
      } catch {
        // a malformed escape: no key is read from it
      }
    },
    response(exchange, answer, state) {
      noteShare(exchange, answer, state);
      const token = pageToken(exchange);
      if (!token || answer.status !== 200) return;
      const share = sharesByToken(state).get(token);
      if (!share) return;
      const html = answer.body
        .toString('utf8')
        .replace(
          /<button type="button" aria-haspopup="dialog" data-download="([^"]+)">([^<]*)<\/button>/g,
          (_, file: string, label: string) =>
            `<a class="download" href="/api/v1/export/${share.segmentationId}/${file}?api_key=${encodeURIComponent(share.key)}" download>${label}</a>`,
        );
      answer.body = Buffer.from(html);
    },
  },
];
