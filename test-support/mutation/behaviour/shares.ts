import type { Answer, Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { bodyOf, editJson, freshId, route, setJson, SHARE_READ } from './proxy-effects.js';

/**
 * Shares: one live link per segmentation (a repeat answers the same share), each opening of the
 * page counts one view, a revoke turns the link off at once (the share stays readable), and a
 * share asked for after a revoke is a new one with a new link.
 */

const VIEW_COUNT = 'share.7102fb';
const REVOKED_AT = 'share.992065';
const REPEAT = 'share.283b19';
const REVOKE = 'share.b643c7';
const AFTER_REVOKE = 'share.8f2b59';
const IDEMPOTENT = 'post-shares.96c96b';
const GET_SHARE = 'get-shares-share-id.0f5521';
const ONE_LIVE = 'limits.c70ec0';
const TURNS_OFF = 'delete-shares-share-id.93dbdb';
const REVOKE_BODY = 'delete-shares-share-id.faa2a2';
const LINK = 'share.11c348';

const PAGE = /^\/share\/([^/]+)$/;
const VIEW_TRIGGERS = [
  ['viewSharePage', 200],
  ['getShare', 200],
] as const;
const REVOKE_TRIGGERS = [
  ['revokeShare', 200],
  ['viewSharePage', 404],
  ['createShare', 200],
] as const;

const tokenOf = (url: unknown) => (typeof url === 'string' ? url.split('/share/')[1] : undefined);
const isCreate = (exchange: Exchange) => exchange.method === 'POST' && route(exchange) === '/api/v1/shares';
const shareOf = (answer: Answer) =>
  answer.status === 200
    ? bodyOf<{ id: string; segmentation_id: string; url?: string; view_count: number }>(answer.body)
    : undefined;

/** Share ids by token and tokens by id, as the proxy saw them in answers. */
function shareMemory() {
  const idOfToken = new Map<string, string>();
  const see = (exchange: Exchange, answer: Answer) => {
    const r = route(exchange);
    if (!(isCreate(exchange) || SHARE_READ.test(r))) return;
    const share = shareOf(answer);
    const token = tokenOf(share?.url);
    if (share?.id && token) idOfToken.set(token, share.id);
  };
  return { idOfToken, see };
}

const isShareRead = (exchange: Exchange, answer: Answer) =>
  exchange.method === 'GET' && SHARE_READ.test(route(exchange)) && answer.status === 200;

export const shareMutants = () => [
  behaviourMutant({
    rule: 'shares',
    edit: 'view-counted-twice',
    summary: 'An effect done twice: each opening of the page counts two views.',
    sentences: [VIEW_COUNT, GET_SHARE],
    triggers: VIEW_TRIGGERS,
    make: (effect) => ({
      response: async (exchange, answer, state) => {
        if (exchange.method === 'GET' && PAGE.test(route(exchange)) && answer.status === 200) {
          await fetch(`${state.target}${route(exchange)}`);
          effect(exchange, 'the page opened once more');
        }
      },
    }),
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'view-count-stale',
    summary:
      "A stale derived value: GET /shares answers the view count (and last view) of the share's first read.",
    sentences: [VIEW_COUNT, GET_SHARE],
    triggers: VIEW_TRIGGERS,
    make() {
      const first = new Map<string, [unknown, unknown]>();
      return {
        response: (exchange, answer) => {
          if (!isShareRead(exchange, answer)) return;
          editJson(answer, (share) => {
            const id = String(share.id);
            if (!first.has(id)) first.set(id, [share.view_count, share.last_viewed_at]);
            [share.view_count, share.last_viewed_at] = first.get(id)!;
          });
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'view-count-off-by-one',
    summary: 'A derived value off by one: a viewed share reads one view more than it had.',
    sentences: [VIEW_COUNT, GET_SHARE],
    triggers: VIEW_TRIGGERS,
    make: () => ({
      response: (exchange, answer) => {
        if (isShareRead(exchange, answer))
          editJson(answer, (share) => {
            if (Number(share.view_count) > 0) share.view_count = Number(share.view_count) + 1;
          });
      },
    }),
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'revoked-opens-count',
    summary: 'Opening a revoked link (refused) still counts a view.',
    sentences: [VIEW_COUNT, REVOKED_AT],
    triggers: [...VIEW_TRIGGERS, ['viewSharePage', 404]],
    make() {
      const memory = shareMemory();
      const extra = new Map<string, number>();
      return {
        response: (exchange, answer) => {
          memory.see(exchange, answer);
          const token = exchange.method === 'GET' ? PAGE.exec(route(exchange))?.[1] : undefined;
          const id = token && memory.idOfToken.get(token);
          if (id && answer.status === 404) extra.set(id, (extra.get(id) ?? 0) + 1);
          if (isShareRead(exchange, answer))
            editJson(answer, (share) => {
              const more = extra.get(String(share.id));
              if (more) {
                share.view_count = Number(share.view_count) + more;
                share.last_viewed_at = new Date().toISOString();
              }
            });
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'view-counted-on-another-share',
    summary:
      'An effect on the wrong object: opening a page also counts a view on the share opened before it.',
    sentences: [VIEW_COUNT],
    triggers: VIEW_TRIGGERS,
    make(effect) {
      let previous: string | undefined;
      return {
        response: async (exchange, answer, state) => {
          const token = exchange.method === 'GET' ? PAGE.exec(route(exchange))?.[1] : undefined;
          if (!token || answer.status !== 200) return;
          if (previous && previous !== token) {
            await fetch(`${state.target}/share/${previous}`);
            effect(exchange, 'a view counted on the share opened before');
          }
          previous = token;
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'revoke-not-applied',
    summary: 'The revoke is answered but not applied to the link: a revoked link still opens.',
    sentences: [REVOKE, REVOKED_AT, 'delete-shares-share-id.93dbdb'],
    triggers: REVOKE_TRIGGERS,
    make: () => stillOpens(Infinity),
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'revoke-one-step-late',
    summary: 'The revoke applied one step late: the first opening after it still shows the page.',
    sentences: [REVOKE, REVOKED_AT],
    triggers: REVOKE_TRIGGERS,
    make: () => stillOpens(1),
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'new-share-same-link',
    summary: 'After a revoke, the new share carries the revoked link (no new link is created).',
    sentences: [AFTER_REVOKE],
    triggers: REVOKE_TRIGGERS,
    make() {
      const revokedUrl = new Map<string, unknown>();
      return {
        response: (exchange, answer) => {
          const share = shareOf(answer);
          if (exchange.method === 'DELETE' && SHARE_READ.test(route(exchange)) && share)
            revokedUrl.set(share.segmentation_id, share.url);
          if (isCreate(exchange) && share && revokedUrl.has(share.segmentation_id))
            editJson(answer, (s) => (s.url = revokedUrl.get(share.segmentation_id)));
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'repeat-after-revoke-answers-revoked',
    summary:
      'The idempotence applied to a revoked share: POST /shares after a revoke answers the revoked share.',
    sentences: [AFTER_REVOKE, IDEMPOTENT],
    triggers: REVOKE_TRIGGERS,
    make() {
      const revoked = new Map<string, Buffer>();
      return {
        response: (exchange, answer) => {
          const share = shareOf(answer);
          if (exchange.method === 'DELETE' && SHARE_READ.test(route(exchange)) && share)
            revoked.set(share.segmentation_id, answer.body);
          if (isCreate(exchange) && share && revoked.has(share.segmentation_id))
            answer.body = revoked.get(share.segmentation_id)!;
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'repeat-makes-second-link',
    summary:
      'The one-live-link rule skipped: POST /shares again for a live share answers another share (its own id and link).',
    sentences: [REPEAT, IDEMPOTENT, ONE_LIVE],
    triggers: [
      ['createShare', 200],
      ['getShare', 200],
    ],
    make() {
      const seen = new Set<string>();
      const alias = new Map<string, string>();
      return {
        request: (exchange) => {
          const id = SHARE_READ.exec(route(exchange))?.[1];
          if (id && alias.has(id)) exchange.path = exchange.path.replace(id, alias.get(id)!);
        },
        response: (exchange, answer) => {
          const share = shareOf(answer);
          if (!share) return;
          const id = SHARE_READ.exec(route(exchange))?.[1];
          if (id && alias.has(id)) editJson(answer, (s) => (s.id = id));
          if (!isCreate(exchange)) return;
          if (!seen.has(share.id)) {
            seen.add(share.id);
            return;
          }
          const fresh = freshId();
          alias.set(fresh, share.id);
          editJson(answer, (s) => (s.id = fresh));
        },
      };
    },
  }),
];

/** The document's choices where the interface shows no answer: a second revoke, a mangled link. */
export const shareChoiceMutants = () => [
  behaviourMutant({
    rule: 'shares',
    edit: 'second-revoke-not-found',
    summary: 'A revoke looks for a live share only: revoking a revoked share answers 404.',
    sentences: [TURNS_OFF, REVOKE_BODY],
    triggers: [['revokeShare', 200]],
    make() {
      const revoked = new Set<string>();
      return {
        response: (exchange, answer) => {
          const id = exchange.method === 'DELETE' ? SHARE_READ.exec(route(exchange))?.[1] : undefined;
          if (!id || answer.status !== 200) return;
          if (revoked.has(id.toLowerCase())) setJson(answer, 404, { detail: 'Share not found' });
          else revoked.add(id.toLowerCase());
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'shares',
    edit: 'link-near-match-opens',
    summary:
      'A link is found by a prefix of its token (a LIKE with a wildcard): a link cut short, or with its last character changed, opens the page.',
    sentences: [LINK],
    triggers: [['viewSharePage', 404]],
    make() {
      const tokens = new Set<string>();
      const near = (sent: string) =>
        [...tokens].find((t) => t !== sent && t.startsWith(sent.slice(0, Math.max(1, sent.length - 1))));
      return {
        request: (exchange) => {
          const sent = exchange.method === 'GET' ? PAGE.exec(route(exchange))?.[1] : undefined;
          const match = sent && !tokens.has(sent) ? near(sent) : undefined;
          if (match) exchange.path = `/share/${match}`;
        },
        response: (exchange, answer) => {
          const token = tokenOf(shareOf(answer)?.url);
          if ((isCreate(exchange) || SHARE_READ.test(route(exchange))) && token) tokens.add(token);
        },
      };
    },
  }),
];

/** A revoked link answers the page it showed before the revoke, `times` times. */
function stillOpens(times: number) {
  const memory = shareMemory();
  const page = new Map<string, Answer>();
  const revoked = new Set<string>();
  const served = new Map<string, number>();
  return {
    response: (exchange: Exchange, answer: Answer) => {
      memory.see(exchange, answer);
      const share = shareOf(answer);
      if (exchange.method === 'DELETE' && SHARE_READ.test(route(exchange)) && share) revoked.add(share.id);
      const token = exchange.method === 'GET' ? PAGE.exec(route(exchange))?.[1] : undefined;
      if (!token) return;
      if (answer.status === 200) page.set(token, { ...answer, headers: { ...answer.headers } });
      const id = memory.idOfToken.get(token);
      const before = page.get(token);
      if (answer.status !== 404 || !id || !revoked.has(id) || !before || (served.get(token) ?? 0) >= times)
        return;
      served.set(token, (served.get(token) ?? 0) + 1);
      Object.assign(answer, { status: 200, headers: { ...before.headers }, body: before.body });
    },
  };
}
