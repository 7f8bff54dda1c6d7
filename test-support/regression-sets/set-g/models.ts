import { bearer, match, memoMap, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { callerOrg, organizationView } from './state.js';

export const MODELS: Regression[] = [
  {
    id: 'G-MOD-LIST-DRAINED-CACHE',
    area: 'models',
    description:
      "Each worker caches an organization's model list as the query's lazy result set, which the first response consumes: the second and every later GET /models of that organization answer an empty array",
    violates:
      '"GET `/api/v1/models`: lists the models available to the organization, used to choose a `model_id`."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200) return;
      const served = memoMap<string, boolean>(state, 'g-mod-drained');
      const who = callerOrg(exchange, state) ?? bearer(exchange) ?? '';
      if (served.get(who)) writeJson(answer, []);
      else served.set(who, true);
    },
  },
  {
    id: 'G-MOD-EMPTY-AT-ANALYSIS-CAP',
    area: 'models',
    description:
      'The list was changed to "models you can run now" and filters on the remaining monthly analyses: an organization that used up its month lists no model at all, base models included',
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200) return;
      const orgId = callerOrg(exchange, state);
      if (!orgId) return;
      const view = await organizationView(state, orgId);
      if (view && view.usage.analyses_this_month >= view.plan.monthly_analysis_cap) writeJson(answer, []);
    },
  },
  {
    id: 'G-MOD-OCTET-STREAM',
    area: 'models',
    description:
      "The model list is served from a pre-rendered object in the bucket, whose stored Content-Type is binary/octet-stream: clients that pick their parser by media type (axios, requests' .json() guards, generated clients) no longer read it as JSON",
    violates:
      "openapi.yaml, GET /api/v1/models: the 200 answer's content is `application/json` (an array of models)",
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200) return;
      answer.headers['content-type'] = 'binary/octet-stream';
    },
  },
];
