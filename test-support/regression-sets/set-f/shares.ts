import { copyAnswer, isJson, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';
import { SHARE, SHARES } from './shared.js';

const PAGE = /^\/share\/([^/]+)$/;

interface Share {
  id: string;
  segmentation_id: string;
  url?: string | null;
  view_count: number;
  last_viewed_at?: string | null;
  created_at: string;
  revoked_at?: string | null;
}

/** The share an answer of POST /shares, GET or DELETE /shares/{id} carries. */
function shareOf(exchange: Exchange, answer: Answer): Share | undefined {
  const route =
    match(exchange, 'POST', SHARES) ?? match(exchange, 'GET', SHARE) ?? match(exchange, 'DELETE', SHARE);
  if (!route || answer.status !== 200 || !isJson(answer)) return undefined;
  return readJson<Share>(answer);
}

/** View-only public links and their pages. */
export const SHARE_REGRESSIONS: Regression[] = [
  {
    id: 'F-SH-PAGE-MICROCACHED-VIEWS',
    area: 'shares',
    description:
      'The share page is micro-cached per token for one second at the edge (to absorb link-preview bursts): opens of the link within a second of a rendered one are served from the cache and count no view',
    violates: '"`view_count` | integer | yes | times the link was opened"',
    statedIn: 'interface',
    async request(exchange, state) {
      const page = exchange.method === 'GET' && new URL(exchange.path, 'http://proxy').pathname.match(PAGE);
      if (!page) return;
      const cache = memoMap<string, { at: number; answer: Promise<Answer> }>(state, 'microcache');
      const held = cache.get(page[1]);
      if (held && Date.now() - held.at < 1000) {
        // The edge asks the origin whether the link still opens (the preview counts no view).
        const live = await state.upstream('GET', `/share/${page[1]}/image.png`);
        if (live.status === 200) return copyAnswer(await held.answer);
      }
      const answer = state.resend(exchange);
      cache.set(page[1], { at: Date.now(), answer });
      const rendered = await answer;
      if (rendered.status !== 200) cache.delete(page[1]);
      return copyAnswer(rendered);
    },
  },
  {
    id: 'F-SH-REVOKE-ANSWERS-OLD-ROW',
    area: 'shares',
    description:
      'The revoke answers the share row it read before its UPDATE: the first DELETE /shares/{id} answers `revoked_at: null`, as if the link were still live (a later GET shows it revoked)',
    violates:
      'revokeShare 200: "The revoked share, with `revoked_at` set. Revoking twice answers the same share."',
    statedIn: 'document',
    response(exchange, answer, state) {
      const share = match(exchange, 'DELETE', SHARE) && shareOf(exchange, answer);
      const revoked = memoMap<string, boolean>(state, 'revoked');
      if (!share || revoked.has(share.id)) return;
      revoked.set(share.id, true);
      writeJson(answer, { ...share, revoked_at: null });
    },
  },
  {
    id: 'F-SH-URL-DOUBLE-SLASH',
    area: 'shares',
    description:
      'The share base URL is configured with a trailing slash and joined with "/share/": links read `https://host//share/<token>`, which the page router does not match (404)',
    violates:
      '"`url` | string or null | no | link to send, `{share_base_url}/share/<share_token>`; anyone holding it can view"',
    statedIn: 'interface',
    response(exchange, answer) {
      const share = shareOf(exchange, answer);
      if (!share?.url) return;
      writeJson(answer, { ...share, url: share.url.replace(/\/share\//, '//share/') });
    },
  },
  {
    id: 'F-SH-REVOKE-RESETS-VIEWS',
    area: 'shares',
    description:
      'The revoke writes the share row back from a fresh model with the defaults (view_count 0, last_viewed_at null): a revoked share reads as never opened',
    violates:
      '"revoked shares remain readable with `revoked_at` set" / "`view_count` | integer | yes | times the link was opened"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const share = shareOf(exchange, answer);
      const zeroed = memoMap<string, boolean>(state, 'zeroed');
      if (!share) return;
      if (match(exchange, 'DELETE', SHARE)) zeroed.set(share.id, true);
      if (zeroed.has(share.id)) writeJson(answer, { ...share, view_count: 0, last_viewed_at: null });
    },
  },
  {
    id: 'F-SH-RESHARE-DROPS-OLD-SHARE',
    area: 'shares',
    description:
      'Sharing again after a revoke upserts on the segmentation: the new share replaces the revoked row, whose id then answers 404 "Share not found" on GET /shares/{id}',
    violates:
      '"`DELETE /shares/{share_id}` | revoked (`revoked_at` set) | link no longer opens; share still readable via `GET /shares/{share_id}`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const gone = memoMap<string, boolean>(state, 'gone');
      const revokedOf = memoMap<string, string>(state, 'revoked-of');
      const read = match(exchange, 'GET', SHARE) ?? match(exchange, 'DELETE', SHARE);
      if (read && gone.has(read[1].toLowerCase()))
        return void Object.assign(answer, jsonAnswer(404, { detail: 'Share not found' }));
      const share = shareOf(exchange, answer);
      if (!share) return;
      if (match(exchange, 'DELETE', SHARE)) return void revokedOf.set(share.segmentation_id, share.id);
      const old = revokedOf.get(share.segmentation_id);
      if (match(exchange, 'POST', SHARES) && old && old !== share.id) gone.set(old, true);
    },
  },
  {
    id: 'F-SH-LAST-VIEWED-AT-CREATION',
    area: 'shares',
    description:
      'The share row is inserted with `last_viewed_at = now()` (the column copied the default of `created_at`): a link nobody opened reads as last viewed when it was made',
    violates:
      '"`last_viewed_at` | date-time or null | no" beside "`view_count` | integer | yes | times the link was opened"',
    statedIn: 'interface',
    response(exchange, answer) {
      const share = shareOf(exchange, answer);
      if (share && !share.last_viewed_at) writeJson(answer, { ...share, last_viewed_at: share.created_at });
    },
  },
];
