import { bearer, isJson, isUuid, jsonAnswer, match, memoMap, pathname, readJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { CREATE_IMAGE, IMAGE_READ, PREDICT, SHARES, UPLOAD, requestJson } from './shared.js';

/** Who may call what: the bearer key, the organization it belongs to, and how the header is read. */
export const AUTH_REGRESSIONS: Regression[] = [
  {
    id: 'F-AUTH-SECOND-KEY-IMAGES-HIDDEN',
    area: 'auth',
    description:
      'Image reads filter on the key that created the image (`created_by_key`) instead of its organization: another key of the same organization reads the image 404',
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const creators = memoMap<string, string>(state, 'creators');
      const key = bearer(exchange) ?? '';
      const created = match(exchange, 'POST', UPLOAD) ?? match(exchange, 'POST', CREATE_IMAGE);
      if (created && answer.status === 200 && isJson(answer)) {
        const body = readJson<{ id?: string; image?: { id: string } }>(answer);
        const id = body.image?.id ?? body.id;
        if (id) creators.set(id.toLowerCase(), key);
        return;
      }
      const read = match(exchange, 'GET', IMAGE_READ);
      if (!read || answer.status !== 200) return;
      const creator = creators.get(read[1].toLowerCase());
      if (creator === undefined || creator === key) return;
      const orgOf = (k: string) => state.organizations.find((org) => org.key === k)?.id;
      if (orgOf(creator) !== undefined && orgOf(creator) === orgOf(key))
        Object.assign(answer, jsonAnswer(404, { detail: 'Image not found' }));
    },
  },
  {
    id: 'F-AUTH-BODY-BEFORE-KEY',
    area: 'auth',
    description:
      'POST /predict and POST /shares validate their body before the key (the validator runs as a dependency ahead of auth): a missing or invalid key with a malformed id answers 422 instead of 401',
    violates:
      '"A missing or invalid key yields 401." / "Every request carries `Authorization: Bearer <API_KEY>`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (answer.status !== 401) return;
      const body = requestJson(exchange) ?? {};
      const fields = match(exchange, 'POST', PREDICT)
        ? ['image_id', 'model_id']
        : match(exchange, 'POST', SHARES)
          ? ['segmentation_id']
          : [];
      const bad = fields.find((field) => !isUuid(body[field]));
      if (!bad) return;
      Object.assign(
        answer,
        jsonAnswer(422, { detail: `${bad}: '${String(body[bad] ?? '')}' is not a valid UUID` }),
      );
    },
  },
  {
    id: 'F-AUTH-PREFLIGHT-NEEDS-KEY',
    area: 'auth',
    description:
      'The auth middleware runs before the CORS handler: a browser preflight (OPTIONS, which never carries credentials) answers 401, so no browser client can call the API',
    violates:
      'x-http-conventions.cors: "Every route answers CORS ... A preflight is answered with the methods of its path and the request headers its operations read"',
    statedIn: 'document',
    request(exchange) {
      if (exchange.method !== 'OPTIONS' || !pathname(exchange).startsWith('/api/v1/')) return;
      if (exchange.headers.get('authorization')) return;
      return jsonAnswer(
        401,
        { detail: 'Not authenticated: send Authorization: Bearer <API_KEY>' },
        { 'www-authenticate': 'Bearer', 'access-control-allow-origin': '*' },
      );
    },
  },
  {
    id: 'F-AUTH-BEARER-EXTRA-SPACE',
    area: 'auth',
    description:
      'The key is cut out of the header as `header.slice(7)`: `Bearer  <key>` with two spaces (RFC 9110 allows one or more) leaves a blank in front of the key, which matches no key: 401',
    violates:
      '"A missing or invalid key yields 401." (a valid key sent as `Authorization: Bearer <API_KEY>`)',
    statedIn: 'interface',
    request(exchange) {
      const header = exchange.headers.get('authorization') ?? '';
      if (!/^bearer {2,}\S/i.test(header)) return;
      return jsonAnswer(401, { detail: 'Invalid API key' }, { 'www-authenticate': 'Bearer' });
    },
  },
  {
    id: 'F-AUTH-CHALLENGE-BASIC',
    area: 'auth',
    description:
      'A 401 challenges with `WWW-Authenticate: Basic realm="cellseg"` (the reverse proxy\'s auth_basic default) instead of Bearer: browsers pop up a user/password dialog and clients pick the wrong scheme',
    violates:
      'components.securitySchemes.bearerAuth: `type: http, scheme: bearer` (the 401 challenge names the scheme)',
    statedIn: 'document',
    response(_exchange, answer) {
      if (answer.status === 401) answer.headers['www-authenticate'] = 'Basic realm="cellseg"';
    },
  },
  {
    id: 'F-AUTH-QUERY-KEY-ACCEPTED',
    area: 'auth',
    description:
      'A fallback kept for an old dashboard widget reads the key from `?api_key=` when no Authorization header is sent: a request without the header is served, and the key ends up in URLs and logs',
    violates:
      '"Every request carries `Authorization: Bearer <API_KEY>`." / "A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange) {
      if (exchange.headers.get('authorization') || !pathname(exchange).startsWith('/api/v1/')) return;
      const key = new URL(exchange.path, 'http://proxy').searchParams.get('api_key');
      if (key) exchange.headers.set('authorization', `Bearer ${key}`);
    },
  },
];
