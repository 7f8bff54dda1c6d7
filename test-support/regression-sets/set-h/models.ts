import type { Answer, Exchange, Regression } from '../regression.js';
import { caller, isJson, match, readJson, writeJson } from '../edit-helpers.js';
import { planOf } from './kit.js';

interface Model {
  id: string;
  name: string;
  kind: string;
}

function editList(exchange: Exchange, answer: Answer): Model[] | null {
  if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200 || !isJson(answer)) return null;
  const list = readJson<unknown>(answer);
  return Array.isArray(list) ? (list as Model[]) : null;
}

export const MODELS: Regression[] = [
  {
    id: 'H-MOD-FAMILY-LATEST-ONLY',
    area: 'models',
    description:
      'The list keeps only the newest version of each custom model family (the name with its `-vN` suffix stripped), for the picker: an organization that trained `x-v2` and then `x-v3` no longer sees `x-v2`, though it still runs',
    violates:
      '"GET `/api/v1/models`: lists the models available to the organization, used to choose a `model_id`."',
    statedIn: 'interface',
    response(exchange, answer) {
      const list = editList(exchange, answer);
      if (!list) return;
      const family = (name: string) => name.replace(/[-_]v\d+$/i, '');
      const rank = (name: string) => Number(/[-_]v(\d+)$/i.exec(name)?.[1] ?? 0);
      const newest = new Map<string, Model>();
      for (const model of list.filter((m) => m.kind === 'custom')) {
        const held = newest.get(family(model.name));
        if (!held || rank(model.name) > rank(held.name)) newest.set(family(model.name), model);
      }
      const kept = list.filter((m) => m.kind !== 'custom' || newest.get(family(m.name)) === m);
      if (kept.length !== list.length) writeJson(answer, kept);
    },
  },
  {
    id: 'H-MOD-IDS-URN',
    area: 'models',
    description:
      "The model serializer renders ids with Python's `uuid.urn`: the list answers `urn:uuid:078e62ee-...`, which predict happens to accept but which matches no `model_id` a prediction answers",
    violates:
      'x-http-conventions `ids`: "every response carries the canonical lower-case form" (Model `id`, format uuid)',
    statedIn: 'document',
    response(exchange, answer) {
      const list = editList(exchange, answer);
      if (!list) return;
      writeJson(
        answer,
        list.map((m) => ({ ...m, id: `urn:uuid:${m.id}` })),
      );
    },
  },
  {
    id: 'H-MOD-CUSTOM-PLAN-GATED',
    area: 'models',
    description:
      "The list hides custom models on the `starter` and `trial` plans (a gate meant for the dashboard's training page): Beta Bio, on starter, lists no custom model, though its `beta-organoid-v1` runs for it",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const list = editList(exchange, answer);
      const org = caller(exchange, state);
      if (!list || !org) return;
      const plan = await planOf(state, org.id);
      if (!plan || !['starter', 'trial'].includes(plan.name)) return;
      const kept = list.filter((m) => m.kind !== 'custom');
      if (kept.length !== list.length) writeJson(answer, kept);
    },
  },
];
