import { asOwner, bearer, jsonAnswer, match, memoMap, others, pathname } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { UUID } from './state.js';

const PREFIX_LENGTH = 16;

export const AUTH: Regression[] = [
  {
    id: 'G-AUTH-NEGATIVE-CACHE-BY-PREFIX',
    area: 'auth',
    description:
      'Failed key lookups are cached for a minute under the key\'s 16-character display prefix: after one request with a mistyped key, the valid key that shares its prefix is refused 401 "Invalid API key" too',
    violates: '"A missing or invalid key yields 401." (only a missing or invalid key; a valid one is served)',
    statedIn: 'interface',
    request(exchange, state) {
      if (!pathname(exchange).startsWith('/api/v1/')) return;
      const key = bearer(exchange);
      if (!key) return;
      const refused = memoMap<string, number>(state, 'g-auth-negative');
      const prefix = key.slice(0, PREFIX_LENGTH);
      const known = state.organizations.some((org) => org.key === key);
      if (!known) {
        if (state.organizations.some((org) => org.key.startsWith(prefix))) refused.set(prefix, Date.now());
        return;
      }
      const at = refused.get(prefix);
      if (at !== undefined && Date.now() - at < 60_000)
        return jsonAnswer(401, { detail: 'Invalid API key' }, { 'www-authenticate': 'Bearer' });
    },
  },
  {
    id: 'G-AUTH-INVALID-KEY-LAST-PRINCIPAL',
    area: 'auth',
    description:
      'The auth middleware keeps the last authenticated principal of the worker as a fallback when a key is not found (meant for the dashboard session): a request with an unknown key, sent after any valid one, is served as that organization',
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange, state) {
      if (!pathname(exchange).startsWith('/api/v1/')) return;
      const key = bearer(exchange);
      const last = memoMap<string, string>(state, 'g-auth-last');
      if (!key) return;
      if (state.organizations.some((org) => org.key === key)) {
        last.set('key', key);
        return;
      }
      const previous = last.get('key');
      if (previous) exchange.headers.set('authorization', `Bearer ${previous}`);
    },
  },
  {
    id: 'G-AUTH-REVOKE-OTHER-ORG-403',
    area: 'auth',
    description:
      'DELETE /shares/{id} loads the share by id and then checks its organization, answering another organization\'s share 403 "Not allowed to revoke this share": the share id is confirmed to exist',
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization. A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const found = match(exchange, 'DELETE', new RegExp(`^/api/v1/shares/${UUID}$`));
      if (!found || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const read = await asOwner({ ...exchange, method: 'GET', body: Buffer.alloc(0) }, state, org);
        if (read.status === 200) {
          Object.assign(answer, jsonAnswer(403, { detail: 'Not allowed to revoke this share' }));
          return;
        }
      }
    },
  },
];
