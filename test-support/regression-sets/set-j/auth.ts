import type { Regression } from '../regression.js';
import { bearer, jsonAnswer, match, memoMap, pathname } from '../edit-helpers.js';
import { canonicalId, errorAnswer, okJson, orgOf, orgView, ROUTES } from './kit.js';

/** Set J, authentication and organization scoping. */
export const AUTH: Regression[] = [
  {
    id: 'J-AUTH-401-NO-CORS',
    area: 'auth',
    description:
      'The auth middleware answers before the CORS middleware has added its headers: a 401 carries no Access-Control-Allow-Origin or Expose-Headers, so a browser client sees an opaque network error instead of the 401 and its WWW-Authenticate',
    violates:
      'x-http-conventions.cors (x-assumed): every route answers CORS; WWW-Authenticate is exposed to the calling page',
    statedIn: 'document',
    response(exchange, answer) {
      if (answer.status !== 401 || !pathname(exchange).startsWith('/api/v1/')) return;
      for (const name of Object.keys(answer.headers))
        if (name.startsWith('access-control-')) delete answer.headers[name];
    },
  },
  {
    id: 'J-AUTH-INTERNAL-TRAILING-SLASH',
    area: 'auth',
    description:
      'The guard of the endpoints outside the public surface compares the raw path with its list while the router ignores a trailing slash: `GET /api/v1/organizations/` answers a valid key its organization (plan and usage), `POST /api/v1/api-keys/` creates a key',
    violates:
      '"A valid key used on an endpoint outside the public product surface yields 403." and "keys cannot be created through the API"',
    statedIn: 'interface',
    async request(exchange, state) {
      const path = pathname(exchange);
      const org = orgOf(exchange, state);
      if (!org || !path.endsWith('/')) return;
      if (exchange.method === 'GET' && path === '/api/v1/organizations/') {
        const view = await orgView(state, org.id);
        if (!view) return;
        return jsonAnswer(200, [{ id: view.id, name: view.name, plan: view.plan, usage: view.usage }]);
      }
      if (exchange.method === 'POST' && path === '/api/v1/api-keys/') {
        const made = await state.upstream('POST', `/__mock/organizations/${org.id}/keys`);
        const key = okJson(made);
        if (!key || typeof key.api_key !== 'string') return;
        state.organizations.push({ ...org, key: key.api_key });
        return jsonAnswer(200, { id: key.id, prefix: key.prefix, api_key: key.api_key });
      }
    },
  },
  {
    id: 'J-AUTH-SECOND-KEY-COMPLETE-403',
    area: 'auth',
    description:
      'A resumable upload is bound to the key that opened it (the storage session keeps its credentials): complete or abort sent with another key of the same organization answers 403 "Image not accessible", so a client that rotates keys mid-upload, or completes from another service, can never finish',
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization."',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'POST', ROUTES.complete) ?? match(exchange, 'POST', ROUTES.abort);
      if (!found) return;
      const opener = memoMap<string, string>(state, 'opened-by').get(canonicalId(found[1]));
      const key = bearer(exchange);
      if (!opener || !key || opener === key) return;
      const openerOrg = state.organizations.find((org) => org.key === opener)?.id;
      if (openerOrg && openerOrg === orgOf(exchange, state)?.id)
        return errorAnswer(403, 'Image not accessible');
    },
    response(exchange, answer, state) {
      const opened = match(exchange, 'POST', ROUTES.upload) ?? match(exchange, 'POST', ROUTES.createImage);
      const body = opened && okJson(answer);
      const key = bearer(exchange);
      if (!body || !body.upload || !key) return;
      const image = (body.image ?? body) as { id?: string };
      if (image.id) memoMap<string, string>(state, 'opened-by').set(canonicalId(image.id), key);
    },
  },
  {
    id: 'J-AUTH-REVOKE-ONE-REVOKES-ALL',
    area: 'auth',
    description:
      'Revoking a key runs its UPDATE without the key id (`WHERE organization_id = :org`): every key the organization held at that moment is revoked with it, so a rotation (add a key, move the clients, revoke the old one) locks the organization out with 401 "Invalid API key"',
    violates:
      'mock-control.yaml: mockCreateApiKey "Add an API key to an organization (rotation is add, move clients, revoke the old one)"; mockRevokeApiKey "Revoke an API key; the next request that presents it answers 401" (that key, not the others)',
    statedIn: 'document',
    request(exchange, state) {
      const key = bearer(exchange);
      const path = pathname(exchange);
      if (!key || !(path.startsWith('/api/v1/') || path.startsWith('/__mock/org/'))) return;
      if (memoMap<string, true>(state, 'revoked-keys').has(key))
        return errorAnswer(401, 'Invalid API key', { 'www-authenticate': 'Bearer' });
    },
    response(exchange, answer, state) {
      const revoked = match(exchange, 'DELETE', /^\/__mock\/organizations\/([^/]+)\/keys\/[^/]+$/);
      if (!revoked || answer.status !== 200) return;
      const keys = memoMap<string, true>(state, 'revoked-keys');
      for (const org of state.organizations) if (org.id === revoked[1]) keys.set(org.key, true);
    },
  },
];
