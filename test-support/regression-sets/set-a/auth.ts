import { bearer, jsonAnswer, match, pathname } from '../edit-helpers.js';
import type { Regression } from '../regression.js';

/** Authentication: who may call, and what a refusal looks like. */
export const AUTH_REGRESSIONS: Regression[] = [
  {
    id: 'A-AUTH-MISSING-403',
    area: 'auth',
    description:
      'A request with no Authorization header is refused 403 "Not authenticated" (a framework default), not 401',
    violates: 'Authentication 4: "A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange) {
      if (!pathname(exchange).startsWith('/api/v1/') || exchange.headers.has('authorization')) return;
      return jsonAnswer(403, { detail: 'Not authenticated' });
    },
  },
  {
    id: 'A-AUTH-KEY-CASE',
    area: 'auth',
    description: 'Keys are compared case-insensitively: a valid key with its case changed is accepted',
    violates: 'Authentication 4: "A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange, state) {
      const key = bearer(exchange);
      if (!key) return;
      const same = state.organizations.find(
        (org) => org.key !== key && org.key.toLowerCase() === key.toLowerCase(),
      );
      if (same) exchange.headers.set('authorization', `Bearer ${same.key}`);
    },
  },
  {
    id: 'A-AUTH-KEY-PREFIX',
    area: 'auth',
    description:
      'A key is found by its 12-character prefix and its hash is never compared: a tampered key with a valid prefix is accepted',
    violates: 'Authentication 4: "A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange, state) {
      const key = bearer(exchange);
      if (!key || key.length < 12) return;
      const owner = state.organizations.find(
        (org) => org.key !== key && org.key.slice(0, 12) === key.slice(0, 12),
      );
      if (owner) exchange.headers.set('authorization', `Bearer ${owner.key}`);
    },
  },
  {
    id: 'A-AUTH-ERROR-SHAPE',
    area: 'auth',
    description:
      'A 401 answers the gateway\'s own body {"error":"unauthorized","message":...} instead of {detail}',
    violates: 'Errors: "Handled errors have body `{detail: string}`." (401: missing or invalid credentials)',
    statedIn: 'interface',
    response(_exchange, answer) {
      if (answer.status !== 401) return;
      answer.body = Buffer.from(JSON.stringify({ error: 'unauthorized', message: 'Invalid API key' }));
    },
  },
  {
    id: 'A-AUTH-SHARE-PAGE-NEEDS-KEY',
    area: 'auth',
    description:
      "The public share page went behind the API's auth middleware: opened without a key it answers 401",
    violates: 'Authentication 6: "Shared pages opened through a share `url` need no credential."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'GET', /^\/share\/[^/]+$/) || exchange.headers.has('authorization')) return;
      return jsonAnswer(401, { detail: 'Not authenticated' }, { 'www-authenticate': 'Bearer' });
    },
  },
];
