import { bearer, jsonAnswer, match, others, pathname } from '../edit-helpers.js';
import type { Regression } from '../regression.js';

const EXPORT = /^\/api\/v1\/export\/[^/]+\/[^/]+$/;
const SHARE_PAGE = /^\/share\/[^/]+(\/image\.png)?$/;

/** Who may call what: the bearer key, its organization, and the pages that need none. */
export const AUTH_REGRESSIONS: Regression[] = [
  {
    id: 'B-AUTH-SHARE-PAGE-NEEDS-KEY',
    area: 'auth',
    description:
      'The public share page went behind the API gateway: opened without a credential it answers 401',
    violates: '"Shared pages opened through a share `url` need no credential."',
    statedIn: 'interface',
    request(exchange) {
      if (exchange.method !== 'GET' || !SHARE_PAGE.test(pathname(exchange))) return;
      if (bearer(exchange)) return;
      return jsonAnswer(401, { detail: 'Not authenticated' }, { 'www-authenticate': 'Bearer' });
    },
  },
  {
    id: 'B-AUTH-EXPORT-KEYLESS',
    area: 'auth',
    description:
      'Exports moved to a download service that checks only that the segmentation exists: a request with a missing or unknown key gets the file',
    violates:
      '"Every request carries `Authorization: Bearer <API_KEY>`." / "A missing or invalid key yields 401."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', EXPORT) || answer.status !== 401) return;
      for (const org of state.organizations) {
        const theirs = await state.upstream('GET', exchange.path, { key: org.key });
        if (theirs.status === 200) return void Object.assign(answer, theirs);
      }
    },
  },
  {
    id: 'B-AUTH-PREDICT-401-AS-403',
    area: 'auth',
    description:
      'On POST /predict a missing or invalid key is answered 403 (the permission check runs first)',
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 401) return;
      answer.status = 403;
      answer.body = Buffer.from(JSON.stringify({ detail: 'Not allowed' }));
      delete answer.headers['www-authenticate'];
    },
  },
  {
    id: 'B-AUTH-SHARE-READ-ANY-ORG',
    area: 'auth',
    description:
      "GET /shares/{id} looks the share up by id alone: another organization's share is answered 200",
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization. A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/shares\/[^/]+$/) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const theirs = await state.upstream('GET', exchange.path, { key: org.key });
        if (theirs.status === 200) return void Object.assign(answer, theirs);
      }
    },
  },
];
