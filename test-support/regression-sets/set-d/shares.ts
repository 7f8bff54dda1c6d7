import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import {
  bearer,
  isJson,
  isUuid,
  jsonAnswer,
  match,
  memoMap,
  pathname,
  readJson,
  writeJson,
} from '../edit-helpers.js';
import { shareToken } from './common.js';

const SHARE = /^\/api\/v1\/shares(?:\/([^/]+))?$/;
const PAGE = /^\/share\/([^/]+)(\/image\.png)?$/;

interface Share {
  id: string;
  segmentation_id: string;
  url?: string | null;
  revoked_at?: string | null;
  view_count?: number;
}

/** The share an answer of /api/v1/shares carries, if any. */
function shareOf(exchange: Exchange, answer: Answer): Share | undefined {
  if (!SHARE.test(pathname(exchange)) || answer.status !== 200 || !isJson(answer)) return undefined;
  const body = readJson<Share>(answer);
  return typeof body.id === 'string' && typeof body.segmentation_id === 'string' ? body : undefined;
}

/** Every share token the proxy has seen handed out. */
function noteTokens(exchange: Exchange, answer: Answer, state: ProxyState): void {
  const token = shareToken(shareOf(exchange, answer)?.url);
  if (token) memoMap<string, true>(state, 'tokens').set(token, true);
}

export const SHARES: Regression[] = [
  {
    id: 'D-SH-IMAGE-COUNTS-VIEW',
    area: 'shares',
    description:
      "The page's preview image goes through the same view tracker as the page: each load of `image.png` counts one more view",
    violates: 'Share field `view_count`: "times the link was opened"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const found = match(exchange, 'GET', PAGE);
      if (found?.[2] && answer.status === 200) await state.upstream('GET', `/share/${found[1]}`);
    },
  },
  {
    id: 'D-SH-REVOKE-TWICE-404',
    area: 'shares',
    description:
      'The revoke looks the share up among live ones: revoking a share already revoked answers 404 "Share not found" instead of the share',
    violates:
      'revokeShare 200: "The revoked share, with `revoked_at` set. Revoking twice answers the same share."',
    statedIn: 'document',
    async request(exchange, state) {
      const found = match(exchange, 'DELETE', SHARE);
      if (!found?.[1] || !isUuid(found[1])) return;
      const read = await state.upstream('GET', `/api/v1/shares/${found[1]}`, { key: bearer(exchange) });
      if (read.status === 200 && isJson(read) && readJson<Share>(read).revoked_at)
        return jsonAnswer(404, { detail: 'Share not found' });
    },
  },
  {
    id: 'D-SH-URL-NO-SHARE-SEGMENT',
    area: 'shares',
    description:
      'The share `url` is joined as `{share_base_url}/<token>` (the `/share/` segment went missing in a config change): the link sent opens a 404',
    violates:
      'Share field `url`: "link to send, `{share_base_url}/share/<share_token>`; anyone holding it can view"',
    statedIn: 'interface',
    response(exchange, answer) {
      const share = shareOf(exchange, answer);
      if (!share || typeof share.url !== 'string') return;
      share.url = share.url.replace(/\/share\/([^/]+)$/, '/$1');
      writeJson(answer, share);
    },
  },
  {
    id: 'D-SH-RESHARE-KEEPS-REVOKED-AT',
    area: 'shares',
    description:
      "Sharing again after a revoke copies the old share's row for the new one and keeps its `revoked_at`: the new, live link reads as revoked",
    violates:
      'State table: "revoked | `POST /shares` for the same segmentation | new live share | a new link is created"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const revokedAt = memoMap<string, string>(state, 'revoked-at-of-segmentation');
      const copied = memoMap<string, string>(state, 'copied-revoked-at');
      const share = shareOf(exchange, answer);
      if (!share) return;
      if (exchange.method === 'DELETE' && share.revoked_at) {
        revokedAt.set(share.segmentation_id, share.revoked_at);
        return;
      }
      const old = revokedAt.get(share.segmentation_id);
      if (exchange.method === 'POST' && old && !share.revoked_at) copied.set(share.id, old);
      const kept = copied.get(share.id);
      if (kept && !share.revoked_at) {
        share.revoked_at = kept;
        writeJson(answer, share);
      }
    },
  },
  {
    id: 'D-SH-NON-UUID-404',
    area: 'shares',
    description:
      'POST /shares looks up a `segmentation_id` that is not a UUID and answers 404 "Segmentation not found" instead of refusing it 422',
    violates: 'POST /shares errors: "422 (invalid UUID)"',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', SHARE) || match(exchange, 'POST', SHARE)?.[1]) return;
      try {
        const body = JSON.parse(exchange.body.toString('utf8')) as { segmentation_id?: unknown };
        if (typeof body.segmentation_id === 'string' && !isUuid(body.segmentation_id))
          return jsonAnswer(404, { detail: 'Segmentation not found' });
      } catch {
        return;
      }
    },
  },
  {
    id: 'D-SH-TOKEN-PREFIX-MATCH',
    area: 'shares',
    description:
      "The page finds its share with `token LIKE :t || '%'` (meant for an index scan): a truncated link, down to its first 8 characters, still opens the page",
    violates:
      'ShareToken: "Anything else (a mangled or truncated link) shows the \\"no longer available\\" page."',
    statedIn: 'document',
    request(exchange, state) {
      const found = match(exchange, 'GET', PAGE);
      if (!found || found[1].length < 8) return;
      const tokens = [...memoMap<string, true>(state, 'tokens').keys()];
      if (tokens.includes(found[1])) return;
      const full = tokens.find((token) => token.startsWith(found[1]));
      if (full) exchange.path = `/share/${full}${found[2] ?? ''}`;
    },
    response: noteTokens,
  },
];
