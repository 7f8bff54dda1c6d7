import type { Regression } from '../regression.js';
import { isJson, match, readJson, writeJson } from '../edit-helpers.js';
import { derivedUuid } from './common.js';

type Model = { id: string; kind?: string; name?: string };

export const MODELS: Regression[] = [
  {
    id: 'D-MOD-LIST-ENVELOPE',
    area: 'models',
    description:
      'The model list was moved onto the paginated list helper: it answers `{items: [...], total: n}` instead of the array of models',
    violates: 'listModels 200: "DESIGN.md answers a JSON array of models" (x-assumed response shape)',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200 || !isJson(answer)) return;
      const models = readJson<Model[]>(answer);
      writeJson(answer, { items: models, total: models.length });
    },
  },
  {
    id: 'D-MOD-CUSTOM-ID-IS-VERSION-ID',
    area: 'models',
    description:
      "Custom models are listed with the id of their trained version row, not the model's id: the `id` a client picks from the list is refused 404 by predict",
    violates:
      '"**GET `/api/v1/models`**: lists the models available to the organization, used to choose a `model_id`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200 || !isJson(answer)) return;
      const models = readJson<Model[]>(answer);
      for (const model of models) if (model.kind === 'custom') model.id = derivedUuid(`version:${model.id}`);
      writeJson(answer, models);
    },
  },
  {
    id: 'D-MOD-NO-CUSTOM-NO-BASE',
    area: 'models',
    description:
      "The list joins the base models to the organization's custom models (an inner join where an outer one was meant): an organization with no custom model gets an empty list",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 200 || !isJson(answer)) return;
      const models = readJson<Model[]>(answer);
      if (!models.some((model) => model.kind === 'custom')) writeJson(answer, []);
    },
  },
  {
    id: 'D-MOD-LIST-NO-AUTH',
    area: 'models',
    description:
      'The model list is served from the public CDN cache of the base models when the key is missing or invalid: 200 with the base models instead of 401',
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/models$/) || answer.status !== 401) return;
      const base = await state.upstream('GET', '/api/v1/models', { key: state.organizations[0].key });
      if (base.status !== 200 || !isJson(base)) return;
      const models = readJson<Model[]>(base).filter((model) => model.kind === 'base');
      answer.status = 200;
      delete answer.headers['www-authenticate'];
      writeJson(answer, models);
    },
  },
];
