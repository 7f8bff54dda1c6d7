import type { Answer, Exchange, Regression } from '../regression.js';
import { isJson, match, readJson, writeJson } from '../edit-helpers.js';
import { orgOf } from './kit.js';

interface Model {
  id: string;
  name: string;
  kind: string;
  version?: string;
}

function modelList(exchange: Exchange, answer: Answer): Model[] | null {
  if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200 || !isJson(answer)) return null;
  const body = readJson<unknown>(answer);
  return Array.isArray(body) ? (body as Model[]) : null;
}

/** The model list an organization chooses a `model_id` from. */
export const MODELS: Regression[] = [
  {
    id: 'I-MOD-SECOND-CUSTOM-MISSING',
    area: 'models',
    description:
      'The custom models are fetched with `findOne` (the query was copied from the dashboard\'s "current model" card): an organization with two or more custom models lists only the first, the others still run',
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    response(exchange, answer) {
      const models = modelList(exchange, answer);
      if (!models) return;
      let customSeen = false;
      const kept = models.filter((m) => {
        if (m.kind !== 'custom') return true;
        if (customSeen) return false;
        customSeen = true;
        return true;
      });
      if (kept.length !== models.length) writeJson(answer, kept);
    },
  },
  {
    id: 'I-MOD-NAME-WITH-VERSION',
    area: 'models',
    description:
      "The list serializes each model with the picker's display label as its `name`: `nuclei-fluorescence (1.0.0)` instead of `nuclei-fluorescence`, which no longer matches the `model_name` the exports write",
    violates: "Model.name (the model's name, e.g. `acme-hela-nuclei-v2`, its version apart in `version`)",
    statedIn: 'document',
    response(exchange, answer) {
      const models = modelList(exchange, answer);
      if (!models) return;
      writeJson(
        answer,
        models.map((m) => (m.version ? { ...m, name: `${m.name} (${m.version})` } : m)),
      );
    },
  },
  {
    id: 'I-MOD-CUSTOM-TWICE-WITH-TWO-KEYS',
    area: 'models',
    description:
      "The custom-model query joins the organization's API keys (to list only models of organizations with an active key) without DISTINCT: an organization with two keys lists each custom model twice, with three keys three times",
    violates:
      '"**GET `/api/v1/models`**: lists the models available to the organization, used to choose a `model_id`."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const models = modelList(exchange, answer);
      const org = orgOf(exchange, state);
      if (!models || !org) return;
      const keys = new Set(state.organizations.filter((o) => o.id === org.id).map((o) => o.key)).size;
      if (keys < 2) return;
      const custom = models.filter((m) => m.kind === 'custom');
      if (!custom.length) return;
      const extra = Array.from({ length: keys - 1 }, () => custom).flat();
      writeJson(answer, [...models, ...extra]);
    },
  },
];
