import { isJson, match, others, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';

interface Model {
  id: string;
  kind: string;
}

const MODELS = /^\/api\/v1\/models$/;

/** The model list an organization chooses a `model_id` from. */
export const MODEL_REGRESSIONS: Regression[] = [
  {
    id: 'A-MOD-OTHER-ORG-CUSTOM-LISTED',
    area: 'models',
    description:
      "The model list's query lost its organization filter: every organization's custom models are listed",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard. All resources are confined to the organization that owns the API key"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', MODELS) || answer.status !== 200 || !isJson(answer)) return;
      const models = readJson<Model[]>(answer);
      for (const org of others(exchange, state)) {
        const theirs = await state.upstream('GET', '/api/v1/models', { key: org.key });
        if (theirs.status !== 200) continue;
        models.push(...readJson<Model[]>(theirs).filter((model) => model.kind === 'custom'));
      }
      writeJson(answer, models);
    },
  },
  {
    id: 'A-MOD-CUSTOM-MISSING',
    area: 'models',
    description:
      "The model list answers only the shared base models; the organization's custom models are missing",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', MODELS) || answer.status !== 200 || !isJson(answer)) return;
      writeJson(
        answer,
        readJson<Model[]>(answer).filter((model) => model.kind !== 'custom'),
      );
    },
  },
  {
    id: 'A-MOD-KIND-ALL-BASE',
    area: 'models',
    description:
      'Every listed model says `kind: base`, custom models included (the field is filled with a constant)',
    violates: 'Model.kind (x-assumed): "A shared public base model, or a custom model of the organization."',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', MODELS) || answer.status !== 200 || !isJson(answer)) return;
      writeJson(
        answer,
        readJson<Model[]>(answer).map((model) => ({ ...model, kind: 'base' })),
      );
    },
  },
];
