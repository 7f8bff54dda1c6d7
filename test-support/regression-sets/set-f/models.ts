import { bearer, caller, isJson, match, readJson, writeJson } from '../edit-helpers.js';
import { seedOrganizations, type Answer, type Exchange, type Regression } from '../regression.js';

const MODELS = /^\/api\/v1\/models$/;

interface Model {
  id: string;
  name: string;
  kind: string;
  version?: string | number;
  description?: string;
}

const RETIRED_BASE: Model = {
  id: '3c9e5b1a-2f4d-4e8a-9b7c-6d5e4f3a2b1c',
  name: 'nuclei-fluorescence',
  kind: 'base',
  version: '0.9.0',
  description: 'Bright nuclei on a dark background (DAPI, Hoechst). Otsu threshold, no splitting.',
};

function models(exchange: Exchange, answer: Answer): Model[] | undefined {
  if (!match(exchange, 'GET', MODELS) || answer.status !== 200 || !isJson(answer)) return undefined;
  const list = readJson<Model[]>(answer);
  return Array.isArray(list) ? list : undefined;
}

/** The model list an organization chooses its `model_id` from. */
export const MODEL_REGRESSIONS: Regression[] = [
  {
    id: 'F-MOD-RETIRED-BASE-LISTED',
    area: 'models',
    description:
      'The list query lost its `retired_at IS NULL` filter: the retired 0.9.0 row of nuclei-fluorescence is listed beside the current one, and predict refuses its id 404 "Model not found"',
    violates:
      '"GET `/api/v1/models`: lists the models available to the organization, used to choose a `model_id`."',
    statedIn: 'interface',
    response(exchange, answer) {
      const list = models(exchange, answer);
      if (!list) return;
      const lastBase = list.map((model) => model.kind).lastIndexOf('base');
      list.splice(lastBase + 1, 0, RETIRED_BASE);
      writeJson(answer, list);
    },
  },
  {
    id: 'F-MOD-NEW-ORG-NO-BASE',
    area: 'models',
    description:
      "Base models are copied into each organization's model table by the seeding job: an organization created after it (a new sign-up) lists no base model at all, though they run for it",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const list = models(exchange, answer);
      const org = caller(exchange, state);
      if (!list || !org || seedOrganizations().some((seeded) => seeded.id === org.id)) return;
      writeJson(
        answer,
        list.filter((model) => model.kind !== 'base'),
      );
    },
  },
  {
    id: 'F-MOD-SECOND-KEY-NO-CUSTOM',
    area: 'models',
    description:
      "Custom models are looked up by the key's creator (`trained_by = key.owner`) instead of the organization: with any key but the organization's first, its custom models are missing from the list",
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard." / "A key is scoped to the organization that owns it"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const list = models(exchange, answer);
      const org = caller(exchange, state);
      if (!list || !org) return;
      const first = state.organizations.find((known) => known.id === org.id);
      if (!first || first.key === bearer(exchange)) return;
      writeJson(
        answer,
        list.filter((model) => model.kind !== 'custom'),
      );
    },
  },
  {
    id: 'F-MOD-VERSION-INTEGER',
    area: 'models',
    description:
      'A model\'s `version` is read from an integer `major_version` column: `1` (a number) instead of the semantic version string `"1.0.0"`',
    violates: 'components.schemas.Model.version: `type: string` (e.g. `1.0.0`)',
    statedIn: 'document',
    response(exchange, answer) {
      const list = models(exchange, answer);
      if (!list) return;
      writeJson(
        answer,
        list.map((model) => ({ ...model, version: Number.parseInt(String(model.version), 10) })),
      );
    },
  },
  {
    id: 'F-MOD-CUSTOM-SHADOWS-BASE',
    area: 'models',
    description:
      'The list is deduplicated by name (`DISTINCT ON (name)`, custom rows first) for the model picker: a custom model given the same name as a base model hides that base model from the list',
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard."',
    statedIn: 'interface',
    response(exchange, answer) {
      const list = models(exchange, answer);
      if (!list) return;
      const custom = new Set(list.filter((model) => model.kind === 'custom').map((model) => model.name));
      const kept = list.filter((model) => model.kind !== 'base' || !custom.has(model.name));
      if (kept.length !== list.length) writeJson(answer, kept);
    },
  },
];
