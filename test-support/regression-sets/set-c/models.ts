import { bearer, copyAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Regression } from '../regression.js';
import { replaceAnswer } from './tools.js';

/** The model list. */

type Model = { id: string; kind: string };

function editList(
  exchange: Parameters<NonNullable<Regression['response']>>[0],
  answer: Answer,
  edit: (models: Model[]) => Model[],
) {
  if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200) return;
  writeJson(answer, edit(readJson<Model[]>(answer)));
}

export const MODELS: Regression[] = [
  {
    id: 'C-MOD-CUSTOM-FIRST',
    area: 'models',
    description:
      "The model list is ordered by creation, newest first: the organization's custom models come before the base models",
    violates: 'listModels 200: "The models, base models first."',
    statedIn: 'document',
    response(exchange, answer) {
      editList(exchange, answer, (models) => [
        ...models.filter((m) => m.kind !== 'base'),
        ...models.filter((m) => m.kind === 'base'),
      ]);
    },
  },
  {
    id: 'C-MOD-BASE-MISSING-WITH-CUSTOM',
    area: 'models',
    description:
      "The list answers the organization's custom models when it has any and falls back to the base models only when it has none (an `or` where a union was meant)",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    response(exchange, answer) {
      editList(exchange, answer, (models) =>
        models.some((m) => m.kind === 'custom') ? models.filter((m) => m.kind === 'custom') : models,
      );
    },
  },
  {
    id: 'C-MOD-BASE-LISTED-TWICE',
    area: 'models',
    description:
      "For an organization with custom models, the base models are listed twice (the custom models' query also matches public rows, and the union keeps duplicates)",
    violates:
      '"`GET /api/v1/models`: lists the models available to the organization" (the shared base models plus its custom models, each once)',
    statedIn: 'interface',
    response(exchange, answer) {
      editList(exchange, answer, (models) => {
        if (!models.some((m) => m.kind === 'custom')) return models;
        const base = models.filter((m) => m.kind === 'base');
        return [...base, ...base, ...models.filter((m) => m.kind !== 'base')];
      });
    },
  },
  {
    id: 'C-MOD-LIST-STALE',
    area: 'models',
    description:
      "Each organization's model list is cached at its first read and not purged when a custom model is added or removed in the dashboard",
    violates:
      '"`GET /api/v1/models`: lists the models available to the organization, used to choose a `model_id`."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200) return;
      const cache = memoMap<string, Answer>(state, 'model-lists');
      const key = bearer(exchange) ?? '';
      const cached = cache.get(key);
      if (cached) replaceAnswer(answer, copyAnswer(cached));
      else cache.set(key, copyAnswer(answer));
    },
  },
];
