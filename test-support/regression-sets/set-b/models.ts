import { copyAnswer, isJson, match, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Regression } from '../regression.js';

const MODELS = /^\/api\/v1\/models$/;

/** How many models the list's default page holds in this regression's backend. */
const DEFAULT_PAGE = 2;

/** The model list an organization chooses a `model_id` from. */
export const MODEL_REGRESSIONS: Regression[] = [
  {
    id: 'B-MOD-LIST-FIRST-PAGE-ONLY',
    area: 'models',
    description: `The model list got a default page size of ${DEFAULT_PAGE} with no way to reach the rest: later models (the custom ones) are cut off`,
    violates:
      '"GET `/api/v1/models`: lists the models available to the organization, used to choose a `model_id`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', MODELS) || answer.status !== 200 || !isJson(answer)) return;
      writeJson(answer, readJson<unknown[]>(answer).slice(0, DEFAULT_PAGE));
    },
  },
  {
    id: 'B-MOD-LIST-CACHED-ACROSS-ORGS',
    area: 'models',
    description:
      "The model list is cached under one key for every organization: whoever asks first fills it, the others see that organization's custom models and not their own",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard. All resources are confined to the organization that owns the API key"',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'GET', MODELS)) return;
      const cached = state.memo.get('models') as Answer | undefined;
      if (cached) return copyAnswer(cached);
    },
    response(exchange, answer, state) {
      if (match(exchange, 'GET', MODELS) && answer.status === 200)
        state.memo.set('models', copyAnswer(answer));
    },
  },
  {
    id: 'B-MOD-ID-AS-MODEL-ID',
    area: 'models',
    description: "Each listed model names its id `model_id` (the predict body's name) instead of `id`",
    violates:
      'Model (x-assumed): "required: [id, name, kind]"; "`id` ... The `model_id` to pass to POST /predict."',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', MODELS) || answer.status !== 200 || !isJson(answer)) return;
      writeJson(
        answer,
        readJson<Array<Record<string, unknown>>>(answer).map(({ id, ...model }) => ({
          model_id: id,
          ...model,
        })),
      );
    },
  },
];
