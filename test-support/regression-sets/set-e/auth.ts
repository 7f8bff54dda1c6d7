import { bearer, caller, jsonAnswer, match, others, pathname } from '../edit-helpers.js';
import type { Regression } from '../regression.js';

const INTERNAL = /^\/api\/v1\/(api-keys|organizations|models\/[^/]+\/train)(\/.*)?$/;

export const AUTH: Regression[] = [
  {
    id: 'E-AUTH-INTERNAL-401',
    area: 'auth',
    description:
      'The operations outside the public surface sit behind the dashboard\'s session check, which answers a valid API key 401 "Invalid API key" instead of 403',
    violates: '"A valid key used on an endpoint outside the public product surface yields 403."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (answer.status !== 403 || !INTERNAL.test(pathname(exchange))) return;
      Object.assign(answer, jsonAnswer(401, { detail: 'Invalid API key' }, { 'www-authenticate': 'Bearer' }));
    },
  },
  {
    id: 'E-AUTH-SCHEME-CASE-SENSITIVE',
    area: 'auth',
    description:
      'The key is read with `header.startsWith("Bearer ")`: a client that writes the scheme `bearer` or `BEARER` (case-insensitive in HTTP) is refused 401',
    violates:
      'components.securitySchemes.bearerAuth (type http, scheme bearer): the scheme of an Authorization header is case-insensitive (RFC 9110, 11.1)',
    statedIn: 'document',
    request(exchange) {
      const header = exchange.headers.get('authorization');
      if (!header || !pathname(exchange).startsWith('/api/v1/')) return;
      if (/^bearer\s/i.test(header) && !header.startsWith('Bearer '))
        return jsonAnswer(401, { detail: 'Invalid API key' }, { 'www-authenticate': 'Bearer' });
    },
  },
  {
    id: 'E-AUTH-SHARE-PAGE-BAD-KEY-401',
    area: 'auth',
    description:
      'The share page runs an "optional auth" middleware that still refuses a credential it cannot verify: opened by a client that sends an expired or unknown key, the public page and its image answer 401',
    violates: '"Shared pages opened through a share `url` need no credential."',
    statedIn: 'interface',
    request(exchange, state) {
      if (exchange.method !== 'GET' || !pathname(exchange).startsWith('/share/')) return;
      if (!exchange.headers.get('authorization')) return;
      if (caller(exchange, state)) return;
      return jsonAnswer(401, { detail: 'Invalid API key' }, { 'www-authenticate': 'Bearer' });
    },
  },
  {
    id: 'E-AUTH-UPLOAD-POLL-NO-KEY',
    area: 'auth',
    description:
      'GET /upload/{image_id} was exempted from auth for the upload progress widget: without a key (or with an invalid one) it answers the image, whichever organization owns it',
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/upload\/[^/]+$/) || answer.status !== 401) return;
      for (const org of state.organizations) {
        const found = await state.upstream('GET', exchange.path, { key: org.key });
        if (found.status === 200) return void Object.assign(answer, found);
      }
    },
  },
  {
    id: 'E-AUTH-OTHER-ORG-IMAGE-403',
    area: 'auth',
    description:
      'An image read checks ownership after the lookup and answers another organization\'s image 403 "Not allowed to access this image" instead of 404: the id is confirmed to exist',
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization. A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/(upload|image)\/[^/]+$/) || answer.status !== 404) return;
      if (!bearer(exchange) || !caller(exchange, state)) return;
      for (const org of others(exchange, state)) {
        const found = await state.upstream('GET', exchange.path, { key: org.key });
        if (found.status === 200)
          return void Object.assign(answer, jsonAnswer(403, { detail: 'Not allowed to access this image' }));
      }
    },
  },
];
