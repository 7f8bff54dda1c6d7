import {
  asOwner,
  caller,
  copyAnswer,
  isJson,
  match,
  memoMap,
  others,
  readJson,
  writeJson,
} from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';

const SHARES = /^\/api\/v1\/shares$/;
const SHARE = /^\/api\/v1\/shares\/([0-9a-fA-F-]{36})$/;
const PAGE = /^\/share\/([^/]+)$/;

interface Share {
  id: string;
  segmentation_id: string;
  url?: string | null;
  revoked_at?: string | null;
  [field: string]: unknown;
}

function shareAnswer(exchange: Exchange, answer: Answer): Share | undefined {
  const isShareRoute = match(exchange, 'POST', SHARES) || match(exchange, exchange.method, SHARE);
  if (!isShareRoute || answer.status !== 200 || !isJson(answer)) return undefined;
  return readJson<Share>(answer);
}

function tokenOf(share: Share): string | undefined {
  return share.url ? new URL(share.url).pathname.split('/').pop() : undefined;
}

/**
 * A share page cache that is never invalidated by `invalidating`: pages are kept by token once
 * they opened, and served again when the live service says 404 for a token it has marked.
 */
export function stalePageCache(
  state: ProxyState,
  exchange: Exchange,
  answer: Answer,
  stale: (token: string) => boolean,
) {
  const found = match(exchange, 'GET', PAGE);
  if (!found) return;
  const pages = memoMap<string, Answer>(state, 'share pages');
  if (answer.status === 200) pages.set(found[1], copyAnswer(answer));
  else if (answer.status === 404 && pages.has(found[1]) && stale(found[1]))
    Object.assign(answer, copyAnswer(pages.get(found[1])!));
}

/** Shares and the public page behind their link. */
export const SHARE_REGRESSIONS: Regression[] = [
  {
    id: 'A-SH-NOT-IDEMPOTENT',
    area: 'shares',
    description:
      'POST /shares again for a segmentation with a live link turns the old link off and makes a new one',
    violates:
      'Shares: "Idempotent: a segmentation has at most one live link; repeating returns the same share."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', SHARES)) return;
      const share = shareAnswer(exchange, answer);
      const org = caller(exchange, state);
      if (!share || !org) return;
      const seen = memoMap<string, string>(state, 'live share of segmentation');
      if (seen.get(share.segmentation_id) === share.id && !share.revoked_at) {
        await state.upstream('DELETE', `/api/v1/shares/${share.id}`, { key: org.key });
        Object.assign(answer, await state.resend(exchange));
        const fresh = shareAnswer(exchange, answer);
        if (fresh) seen.set(fresh.segmentation_id, fresh.id);
        return;
      }
      seen.set(share.segmentation_id, share.id);
    },
  },
  {
    id: 'A-SH-VIEW-COUNTED-TWICE',
    area: 'shares',
    description:
      'Opening the share page counts two views (the page handler and a view-tracking middleware both count)',
    violates: 'Share `view_count`: "times the link was opened"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const found = match(exchange, 'GET', PAGE);
      if (found && answer.status === 200) await state.upstream('GET', `/share/${found[1]}`);
    },
  },
  {
    id: 'A-SH-REVOKED-PAGE-CACHED',
    area: 'shares',
    description:
      'The rendered share page is cached by token and revoking does not purge it: a revoked link still opens',
    violates: 'Share states: "live | DELETE /shares/{share_id} | revoked | link no longer opens"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const revoked = memoMap<string, true>(state, 'revoked tokens');
      const share = shareAnswer(exchange, answer);
      const token = share && tokenOf(share);
      if (token && share.revoked_at) revoked.set(token, true);
      stalePageCache(state, exchange, answer, (t) => revoked.has(t));
    },
  },
  {
    id: 'A-SH-REVOKED-AT-NOT-READ',
    area: 'shares',
    description:
      'GET /shares/{id} answers `revoked_at: null` for a revoked share (the read query leaves the column out)',
    violates: 'GET /shares/{share_id}: "revoked shares remain readable with `revoked_at` set"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', SHARE)) return;
      const share = shareAnswer(exchange, answer);
      if (!share) return;
      share.revoked_at = null;
      writeJson(answer, share);
    },
  },
  {
    id: 'A-SH-REPOST-RETURNS-REVOKED',
    area: 'shares',
    description:
      'POST /shares after a revoke answers the revoked share again (looked up by segmentation without the live filter)',
    violates:
      'Share states: "revoked | POST /shares for the same segmentation | new live share | a new link is created"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const revoked = memoMap<string, string>(state, 'revoked share of segmentation');
      const share = shareAnswer(exchange, answer);
      if (!share) return;
      if (exchange.method === 'DELETE') revoked.set(share.segmentation_id, share.id);
      const org = caller(exchange, state);
      if (!match(exchange, 'POST', SHARES) || !revoked.has(share.segmentation_id) || !org) return;
      const old = await state.upstream('GET', `/api/v1/shares/${revoked.get(share.segmentation_id)}`, {
        key: org.key,
      });
      if (old.status === 200) Object.assign(answer, old);
    },
  },
  {
    id: 'A-SH-OTHER-ORG-SEGMENTATION',
    area: 'shares',
    description: "POST /shares accepts another organization's segmentation and publishes it",
    violates: 'POST /shares errors: "404 (segmentation outside the organization, or still being written)"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', SHARES) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const leaked = await asOwner(exchange, state, org);
        if (leaked.status !== 200) continue;
        Object.assign(answer, leaked);
        return;
      }
    },
  },
  {
    id: 'A-SH-OTHER-ORG-READ',
    area: 'shares',
    description: "GET /shares/{id} reads any organization's share (view counts and tokens of others leak)",
    violates: 'Authentication 3: "A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', SHARE) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const leaked = await asOwner(exchange, state, org);
        if (leaked.status !== 200) continue;
        Object.assign(answer, leaked);
        return;
      }
    },
  },
  {
    id: 'A-SH-URL-INTERNAL-HOST',
    area: 'shares',
    description:
      "The share `url` is built from the request's internal Host behind the load balancer, not the public share root",
    violates:
      'Share `url`: "link to send, `{share_base_url}/share/<share_token>`; anyone holding it can view"',
    statedIn: 'interface',
    response(exchange, answer) {
      const share = shareAnswer(exchange, answer);
      if (!share?.url) return;
      const url = new URL(share.url);
      share.url = `http://cellseg-api.internal:8080${url.pathname}`;
      writeJson(answer, share);
    },
  },
  {
    id: 'A-SH-ROLE-EDITOR',
    area: 'shares',
    description: 'New shares are written with the column default `role: editor`',
    violates: 'Share `role`: "always `viewer` today; shared results are read-only"',
    statedIn: 'interface',
    response(exchange, answer) {
      const share = shareAnswer(exchange, answer);
      if (!share) return;
      share.role = 'editor';
      writeJson(answer, share);
    },
  },
  {
    id: 'A-SH-LAST-VIEWED-NEVER-SET',
    area: 'shares',
    description: 'Opening the page increments `view_count` but never sets `last_viewed_at`',
    violates: 'Share `last_viewed_at` (date-time or null) beside `view_count` "times the link was opened"',
    statedIn: 'interface',
    response(exchange, answer) {
      const share = shareAnswer(exchange, answer);
      if (!share) return;
      share.last_viewed_at = null;
      writeJson(answer, share);
    },
  },
  {
    id: 'A-SH-PAGE-COUNT-OFF-BY-ONE',
    area: 'shares',
    description:
      'The public page shows the number of labels (background included) as the cell count: one too many',
    violates: 'Shares: "Public page: anyone with `url` can view the image, cell outlines and counts"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', PAGE) || answer.status !== 200) return;
      const html = answer.body.toString('utf8');
      answer.body = Buffer.from(
        html.replace(
          /(>\s*)(\d+)(\s*<\/strong>\s*cells?)/,
          (_all, before: string, count: string, after: string) => `${before}${Number(count) + 1}${after}`,
        ),
      );
    },
  },
];
