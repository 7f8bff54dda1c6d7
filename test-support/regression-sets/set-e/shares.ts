import { isJson, match, memoMap, pathname, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';

interface Share {
  id: string;
  segmentation_id: string;
  url: string | null;
  view_count: number;
  last_viewed_at: string | null;
  revoked_at: string | null;
  [field: string]: unknown;
}

/** The share an answer of /api/v1/shares carries, edited in place. */
function editShare(exchange: Exchange, answer: Answer, edit: (share: Share) => void): void {
  if (answer.status !== 200 || !isJson(answer) || !/^\/api\/v1\/shares(\/[^/]+)?$/.test(pathname(exchange)))
    return;
  const share = readJson<Share>(answer);
  if (typeof share?.id !== 'string') return;
  edit(share);
  writeJson(answer, share);
}

function tokenOf(url: string | null | undefined): string | undefined {
  return url ? new URL(url).pathname.match(/\/share\/([^/]+)$/)?.[1] : undefined;
}

/** The page (or its image) of `token` fetched again for another token, as the service's own lookup found it. */
async function pageFor(exchange: Exchange, state: ProxyState, from: string, to: string): Promise<Answer> {
  return state.resend({ ...exchange, path: exchange.path.replace(`/share/${from}`, `/share/${to}`) });
}

export const SHARES: Regression[] = [
  {
    id: 'E-SH-REPOST-RESETS-VIEWS',
    area: 'shares',
    description:
      'POST /shares for a segmentation with a live share upserts the row with its defaults: the same share comes back, but its `view_count` is reset to 0 and `last_viewed_at` to null',
    violates:
      '"live | `POST /shares` again for the same segmentation | live | returns the same share" / "`view_count` | integer | yes | times the link was opened"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const offsets = memoMap<string, number>(state, 'view-offsets');
      const reposted = match(exchange, 'POST', /^\/api\/v1\/shares$/);
      editShare(exchange, answer, (share) => {
        if (reposted && share.view_count - (offsets.get(share.id) ?? 0) > 0 && !share.revoked_at)
          offsets.set(share.id, share.view_count);
        const offset = offsets.get(share.id) ?? 0;
        if (!offset) return;
        share.view_count -= offset;
        if (share.view_count === 0) share.last_viewed_at = null;
      });
    },
  },
  {
    id: 'E-SH-REPOST-REVIVES-REVOKED',
    area: 'shares',
    description:
      'POST /shares after a revoke finds the revoked row and clears its `revoked_at` instead of making a new share: the same id and the same url come back live, and the link that was turned off opens again',
    violates: '"revoked | `POST /shares` for the same segmentation | new live share | a new link is created"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const revoked = memoMap<string, Share>(state, 'revoked-by-segmentation');
      const revived = memoMap<string, string>(state, 'revived-token');
      const revivedIds = memoMap<string, boolean>(state, 'revived-id');
      const page = pathname(exchange).match(/^\/share\/([^/]+)/);
      if (page && exchange.method === 'GET') {
        const to = revived.get(page[1]);
        if (to && answer.status === 404) Object.assign(answer, await pageFor(exchange, state, page[1], to));
        return;
      }
      const revoke = match(exchange, 'DELETE', /^\/api\/v1\/shares\/[^/]+$/);
      const create = match(exchange, 'POST', /^\/api\/v1\/shares$/);
      editShare(exchange, answer, (share) => {
        if (revoke && !revivedIds.has(share.id)) revoked.set(share.segmentation_id, { ...share });
        if (create) {
          const old = revoked.get(share.segmentation_id);
          if (!old || old.id === share.id) return;
          const from = tokenOf(old.url);
          const to = tokenOf(share.url);
          if (from && to) revived.set(from, to);
          revivedIds.set(old.id, true);
          revoked.delete(share.segmentation_id);
          Object.assign(share, old, { revoked_at: null });
        } else if (revivedIds.has(share.id) && exchange.method === 'GET') share.revoked_at = null;
      });
    },
  },
  {
    id: 'E-SH-TOKEN-CASE-INSENSITIVE',
    area: 'shares',
    description:
      "Share tokens are stored in a case-insensitive collation column: a link whose token has its letters' case changed (a mail client, a URL shortener) still opens the page",
    violates:
      'components.parameters.ShareToken: "The opaque token at the end of a share `url`. Anything else (a mangled or truncated link) shows the \\"no longer available\\" page."',
    statedIn: 'document',
    async response(exchange, answer, state) {
      const tokens = memoMap<string, string>(state, 'tokens');
      editShare(exchange, answer, (share) => {
        const token = tokenOf(share.url);
        if (token) tokens.set(token.toLowerCase(), token);
      });
      const page = pathname(exchange).match(/^\/share\/([^/]+)/);
      if (!page || exchange.method !== 'GET' || answer.status !== 404) return;
      const real = tokens.get(page[1].toLowerCase());
      if (real && real !== page[1]) Object.assign(answer, await pageFor(exchange, state, page[1], real));
    },
  },
  {
    id: 'E-SH-DEAD-LINK-200',
    area: 'shares',
    description:
      'The "no longer available" page of a revoked or unknown link is rendered with status 200 (a soft 404): link checkers and crawlers take the dead link for a live one',
    violates:
      'GET /share/{share_token}: "A revoked or unknown token shows a \\"no longer available\\" page with status 404"',
    statedIn: 'document',
    response(exchange, answer) {
      if (exchange.method !== 'GET' || !/^\/share\/[^/]+$/.test(pathname(exchange))) return;
      if (answer.status === 404 && (answer.headers['content-type'] ?? '').includes('text/html'))
        answer.status = 200;
    },
  },
  {
    id: 'E-SH-ONE-SHARE-PER-IMAGE',
    area: 'shares',
    description:
      "The live-share unique index was put on the image instead of the segmentation: sharing a second segmentation of the same image (another model's run) answers the first segmentation's share",
    violates:
      '"`POST /shares` for a completed segmentation | live (`revoked_at` null) | one live link per segmentation" / "Body: `{segmentation_id: uuid}`"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const imageOf = memoMap<string, string>(state, 'segmentation-image');
      const shareOf = memoMap<string, string>(state, 'image-share');
      if (match(exchange, 'GET', /^\/api\/v1\/predict\/[^/]+$/) && answer.status === 200 && isJson(answer)) {
        const p = readJson<{ image_id?: string; segmentation_id?: string }>(answer);
        if (p.image_id && p.segmentation_id) imageOf.set(p.segmentation_id, p.image_id);
        return;
      }
      if (!match(exchange, 'POST', /^\/api\/v1\/shares$/) || answer.status !== 200) return;
      const share = readJson<Share>(answer);
      const image = imageOf.get(share.segmentation_id);
      if (!image) return;
      const first = shareOf.get(image);
      if (!first || first === share.id) return void shareOf.set(image, share.id);
      const earlier = await state.upstream('GET', `/api/v1/shares/${first}`, {
        key: exchange.headers.get('authorization')?.replace(/^Bearer\s+/i, ''),
      });
      if (earlier.status !== 200 || readJson<Share>(earlier).revoked_at)
        return void shareOf.set(image, share.id);
      Object.assign(answer, earlier);
    },
  },
];
