import { seedOrganizations, type Regression } from '../regression.js';
import { bearer, jsonAnswer, memoMap, pathname, readJson } from '../edit-helpers.js';
import { idOn } from './kit.js';

const UNAUTHORIZED = () =>
  jsonAnswer(401, { detail: 'Invalid API key' }, { 'www-authenticate': 'Bearer realm="cellseg"' });

const BOOT_KEYS = new Set(seedOrganizations().map((org) => org.key));

export const AUTH: Regression[] = [
  {
    id: 'H-AUTH-NEW-KEY-REFUSED',
    area: 'auth',
    description:
      'API keys are loaded into an in-process allow-list when the service starts and never reloaded: a key created in the dashboard afterwards (a second key, a rotated one, a new organization\'s) is refused 401 "Invalid API key" until the next deploy',
    violates:
      '"A missing or invalid key yields 401." (a valid key is refused) and "API keys are created and managed in the dashboard\'s API Keys section"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!pathname(exchange).startsWith('/api/v1/')) return;
      const key = bearer(exchange);
      if (!key || BOOT_KEYS.has(key)) return;
      if (state.organizations.some((org) => org.key === key)) return UNAUTHORIZED();
    },
  },
  {
    id: 'H-AUTH-NEW-KEY-REVOKES-OLD',
    area: 'auth',
    description:
      'Adding a key to an organization was written as "rotate": the insert runs with an UPDATE that deactivates the organization\'s other keys, so every client still on the older key is refused 401 the moment a second key is created',
    violates:
      '"A key is scoped to the organization that owns it" and "A missing or invalid key yields 401." (an organization\'s keys stay valid until revoked; the older one is not invalid)',
    statedIn: 'interface',
    request(exchange, state) {
      if (!pathname(exchange).startsWith('/api/v1/')) return;
      const key = bearer(exchange);
      if (key && memoMap<string, true>(state, 'deactivated').has(key)) return UNAUTHORIZED();
    },
    response(exchange, answer, state) {
      const orgId = idOn(exchange, 'POST', /^\/__mock\/organizations\/([0-9a-fA-F-]{36})\/keys$/);
      if (!orgId || answer.status >= 300) return;
      const added = readJson<{ api_key?: string }>(answer).api_key;
      const deactivated = memoMap<string, true>(state, 'deactivated');
      for (const org of state.organizations)
        if (org.id.toLowerCase() === orgId && org.key !== added) deactivated.set(org.key, true);
    },
  },
  {
    id: 'H-AUTH-SHARE-READ-NO-KEY',
    area: 'auth',
    description:
      'GET /shares/{id} was moved to the public router with the share page (both "show a share"): without an Authorization header it answers the share, its link and view count included, whichever organization owns it',
    violates:
      '"Every request carries `Authorization: Bearer <API_KEY>`." and "A missing or invalid key yields 401."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!idOn(exchange, 'GET', /^\/api\/v1\/shares\/([0-9a-fA-F-]{36})$/)) return;
      if (exchange.headers.get('authorization')) return;
      for (const org of state.organizations) {
        const found = await state.upstream('GET', exchange.path, { key: org.key });
        if (found.status === 200) return found;
      }
    },
  },
];
