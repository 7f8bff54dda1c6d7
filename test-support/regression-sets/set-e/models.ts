import { caller, isJson, jsonAnswer, match, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { usageOf } from './common.js';

type Model = Record<string, unknown> & { id: string; kind?: string; name?: string };

/** The model list as the mock answered it, edited in place. */
function editList(
  answer: { status: number; headers: Record<string, string>; body: Buffer },
  edit: (models: Model[]) => Model[] | void,
): void {
  if (answer.status !== 200 || !isJson(answer)) return;
  const models = readJson<Model[]>(answer);
  if (!Array.isArray(models)) return;
  writeJson(answer, edit(models) ?? models);
}

/** The base model the engine registry never got: listed, but predict does not know it. */
const NOT_DEPLOYED = 'brightfield-dark-cells';

export const MODELS: Regression[] = [
  {
    id: 'E-MOD-ID-UPPERCASE',
    area: 'models',
    description:
      'Model ids come from a uniqueidentifier column rendered in upper case: the list answers `078E62EE-...`, which matches no `model_id` a prediction answers',
    violates: 'x-http-conventions.ids: "every response carries the canonical lower-case form"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/)) return;
      editList(answer, (models) => void models.forEach((m) => (m.id = m.id.toUpperCase())));
    },
  },
  {
    id: 'E-MOD-TRIAL-ONE-BASE',
    area: 'models',
    description:
      'A plan gate added for the trial: an organization on the `trial` plan is listed only the first base model, though every base model runs for it',
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200) return;
      const usage = await usageOf(state, caller(exchange, state)?.id);
      if (usage?.plan.name !== 'trial') return;
      editList(answer, (models) => {
        const base = models.filter((m) => m.kind === 'base');
        return models.filter((m) => m.kind !== 'base' || m === base[0]);
      });
    },
  },
  {
    id: 'E-MOD-LISTED-NOT-DEPLOYED',
    area: 'models',
    description:
      'The list reads the models table while predict checks the engine registry, which was never given the newest base model (`brightfield-dark-cells`): picked from the list, it is refused 404 "Model not found"',
    violates:
      'GET /api/v1/models: "lists the models available to the organization, used to choose a `model_id`."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      let body: { model_id?: unknown };
      try {
        body = JSON.parse(exchange.body.toString('utf8')) as { model_id?: unknown };
      } catch {
        return;
      }
      if (typeof body.model_id !== 'string') return;
      const org = caller(exchange, state);
      if (!org) return;
      const list = await state.upstream('GET', '/api/v1/models', { key: org.key });
      if (list.status !== 200) return;
      const model = readJson<Model[]>(list).find((m) => m.id === (body.model_id as string).toLowerCase());
      if (model?.name === NOT_DEPLOYED) return jsonAnswer(404, { detail: 'Model not found' });
    },
  },
  {
    id: 'E-MOD-KIND-UPPERCASE',
    area: 'models',
    description:
      "A model's `kind` is rendered from the enum's name: `BASE` / `CUSTOM` instead of `base` / `custom`",
    violates: 'Model schema: `kind` enum `base`, `custom`',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/)) return;
      editList(answer, (models) => void models.forEach((m) => (m.kind = String(m.kind).toUpperCase())));
    },
  },
];
