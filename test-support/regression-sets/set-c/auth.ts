import { bearer, jsonAnswer, match, memoMap, pathname, readJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { replaceAnswer } from './tools.js';

/** Authentication: which credential opens what. */

/** Operations of /api/v1 outside the public product surface (mock-control.yaml lists them). */
const OUTSIDE_SURFACE = [
  /^\/api\/v1\/api-keys$/,
  /^\/api\/v1\/organizations$/,
  /^\/api\/v1\/models\/[^/]+\/train$/,
];

export const AUTH: Regression[] = [
  {
    id: 'C-AUTH-KEY-EXTRA-CHARS',
    area: 'auth',
    description:
      "The key lookup truncates what it is given to the stored keys' length (a fixed-width column): a valid key with characters appended is accepted",
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange, state) {
      const sent = bearer(exchange);
      if (!sent || state.organizations.some((org) => org.key === sent)) return;
      const prefix = state.organizations.find(
        (org) => sent.length > org.key.length && sent.startsWith(org.key),
      );
      if (prefix) exchange.headers.set('authorization', `Bearer ${prefix.key}`);
    },
  },
  {
    id: 'C-AUTH-REVOKE-SHARE-NO-KEY',
    area: 'auth',
    description:
      'DELETE /shares/{id} was registered ahead of the auth middleware: without any Authorization header it finds the share by id alone and revokes it',
    violates:
      '"Every request carries `Authorization: Bearer <API_KEY>`." / "A missing or invalid key yields 401."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'DELETE', /^\/api\/v1\/shares\/([^/]+)$/) || exchange.headers.has('authorization'))
        return;
      for (const org of state.organizations) {
        const answer = await state.upstream('DELETE', exchange.path, { key: org.key });
        if (answer.status === 200) return answer;
      }
      return jsonAnswer(404, { detail: 'Share not found' });
    },
  },
  {
    id: 'C-AUTH-REVOKED-KEY-CACHED',
    area: 'auth',
    description:
      'Authenticated keys are kept in an in-process cache that revoking a key in the dashboard does not purge: a revoked key that was used before keeps working',
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const key = bearer(exchange);
      if (!key || pathname(exchange).startsWith('/__mock/organizations')) return;
      const accepted = memoMap<string, string>(state, 'accepted-keys');
      const org = state.organizations.find((o) => o.key === key);
      if (answer.status !== 401) {
        if (org && answer.status < 500) accepted.set(key, org.id);
        return;
      }
      const organizationId = accepted.get(key);
      if (!organizationId) return;
      // The cache still says whose key it is: answer as that organization, through a key of its own.
      const standIns = memoMap<string, string>(state, 'stand-in-keys');
      let standIn = standIns.get(organizationId);
      if (!standIn) {
        const made = await state.upstream('POST', `/__mock/organizations/${organizationId}/keys`);
        if (made.status >= 300) return;
        standIn = readJson<{ api_key: string }>(made).api_key;
        standIns.set(organizationId, standIn);
      }
      exchange.headers.set('authorization', `Bearer ${standIn}`);
      replaceAnswer(answer, await state.resend(exchange));
    },
  },
  {
    id: 'C-AUTH-INTERNAL-ROUTE-404',
    area: 'auth',
    description:
      'The internal operations were unmounted from the public router instead of guarded: a valid key on them answers 404 "Not Found", not 403',
    violates: '"A valid key used on an endpoint outside the public product surface yields 403."',
    statedIn: 'interface',
    response(exchange, answer) {
      const route = pathname(exchange);
      if (answer.status !== 403 || !OUTSIDE_SURFACE.some((pattern) => pattern.test(route))) return;
      replaceAnswer(answer, jsonAnswer(404, { detail: 'Not Found' }));
    },
  },
  {
    id: 'C-AUTH-SHARE-IMAGE-NEEDS-KEY',
    area: 'auth',
    description:
      "The share page's image went behind the API's auth (it is served by the export code): the page opens without a key but its image answers 401",
    violates:
      '"Public page: anyone with `url` can view the image, cell outlines and counts without an account" / "Shared pages opened through a share `url` need no credential."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'GET', /^\/share\/[^/]+\/image\.png$/) || exchange.headers.has('authorization'))
        return;
      return jsonAnswer(
        401,
        { detail: 'Not authenticated: send Authorization: Bearer <API_KEY>' },
        { 'www-authenticate': 'Bearer' },
      );
    },
  },
];
