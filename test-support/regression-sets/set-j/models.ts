import type { Regression } from '../regression.js';
import { isUuid, match, memoMap, writeJson } from '../edit-helpers.js';
import {
  canonicalId,
  okArray,
  okJson,
  orgModels,
  orgOf,
  requestJson,
  ROUTES,
  setRequestJson,
} from './kit.js';

/** Set J, the model list. */
export const MODELS: Regression[] = [
  {
    id: 'J-MOD-RECENT-FIRST',
    area: 'models',
    description:
      'The model list is sorted by last use for the picker (the model predicted most recently first, never-used ones after): once an organization has run its custom model, that model is listed before the base models',
    violates: 'listModels 200 (x-assumed): "The models, base models first."',
    statedIn: 'document',
    response(exchange, answer, state) {
      const org = orgOf(exchange, state);
      if (!org) return;
      const used = memoMap<string, number>(state, `last-used:${org.id}`);
      if (match(exchange, 'POST', ROUTES.predict)) {
        if (okJson(answer)?.status !== 'submitted') return;
        const turn = ((state.memo.get('use-turn') as number | undefined) ?? 0) + 1;
        state.memo.set('use-turn', turn);
        used.set(canonicalId(requestJson(exchange).model_id), turn);
        return;
      }
      const models = match(exchange, 'GET', ROUTES.models) && okArray(answer);
      if (!models || !used.size) return;
      const lastUse = (model: Record<string, unknown>) => used.get(canonicalId(model.id)) ?? -1;
      writeJson(
        answer,
        [...models].sort((a, b) => lastUse(b) - lastUse(a)),
      );
    },
  },
  {
    id: 'J-MOD-ID-PREFIX-MATCH',
    area: 'models',
    description:
      "Models are looked up by the first block of their id (the dashboard's short id, an indexed column) and the rest is never compared: a `model_id` that shares its first eight hex digits with a model of the organization runs that model instead of answering 404",
    violates: '"404 (image or model outside the organization or missing)"',
    statedIn: 'interface',
    async request(exchange, state) {
      const org = orgOf(exchange, state);
      if (!match(exchange, 'POST', ROUTES.predict) || !org) return;
      const body = requestJson(exchange);
      if (!isUuid(body.model_id)) return;
      const wanted = canonicalId(body.model_id);
      const listed = await orgModels(state, org.id);
      const ids = listed.map((model) => canonicalId(model.id));
      if (ids.includes(wanted)) return;
      const short = ids.find((id) => id.slice(0, 8) === wanted.slice(0, 8));
      if (!short) return;
      body.model_id = short;
      setRequestJson(exchange, body);
    },
  },
  {
    id: 'J-MOD-NO-CUSTOM-FALLBACK',
    area: 'models',
    description:
      "The custom-model query falls back to the default organization's catalogue when the caller's organization has none of its own (a COALESCE meant for the demo account): an organization without custom models (Tiny Trial, any new sign-up) is listed Acme's custom model",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard." and "All resources are confined to the organization that owns the API key"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const models = match(exchange, 'GET', ROUTES.models) && okArray(answer);
      const fallback = state.organizations[0];
      if (!models || !fallback || orgOf(exchange, state)?.id === fallback.id) return;
      if (models.some((model) => model.kind === 'custom')) return;
      const custom = (await orgModels(state, fallback.id)).filter((model) => model.kind === 'custom');
      if (custom.length) writeJson(answer, [...models, ...custom]);
    },
  },
];
