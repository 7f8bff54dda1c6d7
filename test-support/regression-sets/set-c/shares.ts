import {
  asOwner,
  bearer,
  copyAnswer,
  isJson,
  match,
  memoMap,
  others,
  readJson,
  writeJson,
} from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';

/** Shares: the share record and its public page. */

const SHARES = /^\/api\/v1\/shares$/;
const SHARE = /^\/api\/v1\/shares\/([^/]+)$/;
const PAGE = /^\/share\/([^/]+)(\/image\.png)?$/;

type Share = Record<string, unknown> & {
  id: string;
  segmentation_id: string;
  url: string | null;
  view_count: number;
  revoked_at?: string | null;
};

/** A share answered by POST /shares, GET or DELETE /shares/{id}, or undefined. */
function shareOf(exchange: Exchange, answer: Answer): Share | undefined {
  if (answer.status !== 200 || !isJson(answer)) return undefined;
  if (!match(exchange, 'POST', SHARES) && !match(exchange, 'GET', SHARE) && !match(exchange, 'DELETE', SHARE))
    return undefined;
  return readJson<Share>(answer);
}

function tokenOf(url: string | null): string | undefined {
  return url ? new URL(url).pathname.match(PAGE)?.[1] : undefined;
}

export const SHARE_REGRESSIONS: Regression[] = [
  {
    id: 'C-SH-API-READ-COUNTS-VIEW',
    area: 'shares',
    description:
      'GET /shares/{id} goes through the same "open share" code as the page and counts a view: reading the count moves it',
    violates: '"`view_count` | integer | yes | times the link was opened"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const share = shareOf(exchange, answer);
      if (!share) return;
      const reads = memoMap<string, number>(state, 'api-reads');
      if (match(exchange, 'GET', SHARE)) reads.set(share.id, (reads.get(share.id) ?? 0) + 1);
      const extra = reads.get(share.id) ?? 0;
      if (!extra) return;
      writeJson(answer, { ...share, view_count: share.view_count + extra });
    },
  },
  {
    id: 'C-SH-REVOKED-IMAGE-SERVED',
    area: 'shares',
    description:
      "The share page's image is warmed into a cache when the share is made and the revoke does not purge it: a revoked link's image.png is still served",
    violates:
      '`/share/{share_token}/image.png`: "The preview image shown on the share page (live tokens only)."',
    statedIn: 'document',
    async response(exchange, answer, state) {
      const cache = memoMap<string, Answer>(state, 'share-images');
      const share = shareOf(exchange, answer);
      if (share && match(exchange, 'POST', SHARES)) {
        const token = tokenOf(share.url);
        if (token && !cache.has(token)) {
          const image = await state.upstream('GET', `/share/${token}/image.png`);
          if (image.status === 200) cache.set(token, copyAnswer(image));
        }
        return;
      }
      const page = match(exchange, 'GET', PAGE);
      if (!page?.[2] || answer.status !== 404) return;
      const cached = cache.get(page[1]);
      if (!cached) return;
      answer.status = cached.status;
      answer.headers = { ...cached.headers };
      answer.body = Buffer.from(cached.body);
    },
  },
  {
    id: 'C-SH-REVOKE-OTHER-ORG',
    area: 'shares',
    description:
      "DELETE /shares/{id} finds the share by id alone: another organization's key turns the link off (and is answered the share)",
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization. A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'DELETE', SHARE) || !bearer(exchange)) return;
      const own = await state.resend(exchange);
      if (own.status !== 404) return own;
      for (const org of others(exchange, state)) {
        const theirs = await asOwner(exchange, state, org);
        if (theirs.status === 200) return theirs;
      }
      return own;
    },
  },
  {
    id: 'C-SH-REVOKE-AGAIN-MOVES-REVOKED-AT',
    area: 'shares',
    description:
      'Revoking a share that is already revoked writes `revoked_at` again with the time of the second call',
    violates: 'revokeShare 200: "Revoking twice answers the same share."',
    statedIn: 'document',
    response(exchange, answer, state) {
      const share = shareOf(exchange, answer);
      if (!share?.revoked_at) return;
      const seen = memoMap<string, string>(state, 'revoked-at');
      const known = seen.get(share.id);
      if (match(exchange, 'DELETE', SHARE) && known) {
        const moved = new Date(Math.max(Date.now(), Date.parse(known) + 1)).toISOString();
        seen.set(share.id, moved);
        writeJson(answer, { ...share, revoked_at: moved });
        return;
      }
      if (!known) seen.set(share.id, share.revoked_at);
      else writeJson(answer, { ...share, revoked_at: known });
    },
  },
  {
    id: 'C-SH-NEW-SHARE-OLD-TOKEN',
    area: 'shares',
    description:
      'The link token is derived from the segmentation id (an HMAC) instead of drawn at random: the share made after a revoke has the same `url` as the revoked one, which opens again',
    violates:
      '"revoked | `POST /shares` for the same segmentation | new live share | a new link is created" / "a revoked link no longer opens"',
    statedIn: 'interface',
    request(exchange, state) {
      const page = match(exchange, 'GET', PAGE);
      if (!page) return;
      const live = memoMap<string, string>(state, 'token-aliases').get(page[1]);
      if (live) exchange.path = exchange.path.replace(page[1], live);
    },
    response(exchange, answer, state) {
      const share = shareOf(exchange, answer);
      const token = share && tokenOf(share.url);
      if (!share || !token) return;
      const first = memoMap<string, string>(state, 'first-token');
      const aliases = memoMap<string, string>(state, 'token-aliases');
      const renamed = memoMap<string, string>(state, 'renamed-shares');
      const original = first.get(`${bearer(exchange)}|${share.segmentation_id}`);
      if (!original) {
        first.set(`${bearer(exchange)}|${share.segmentation_id}`, token);
        return;
      }
      if (original === token) return;
      // A later share of the same segmentation: it carries the first link, which now opens it.
      if (!renamed.has(share.id)) {
        renamed.set(share.id, token);
        aliases.set(original, token);
      }
      writeJson(answer, { ...share, url: share.url!.replace(renamed.get(share.id)!, original) });
    },
  },
];
