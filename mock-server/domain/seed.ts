import { apiKeyRecord } from './api-keys.js';
import { thresholdParamsProblem, type ThresholdParams } from '../engines/segmentation/threshold-segmenter.js';
import { remoteTimeoutProblem } from '../engines/models/remote-model.js';
import { DomainError } from './errors.js';
import type { ModelEngine, ModelRecord } from './models/model-record.js';
import type { Organization } from './organization-record.js';
import type { StateStore } from './state.js';

export interface SeedModel {
  id: string;
  name: string;
  version: string;
  description: string;
  engine: 'threshold' | 'remote';
  params?: Record<string, unknown>;
  url?: string;
  timeout_ms?: number;
}

export interface SeedOrganization {
  id: string;
  name: string;
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  api_keys: string[];
  custom_models?: SeedModel[];
}

export interface Seed {
  base_models: SeedModel[];
  organizations: SeedOrganization[];
}

/** A seed file's text, checked for the two arrays; `file` names it in the error. */
export function parseSeed(text: string, file: string): Seed {
  const seed = JSON.parse(text) as Seed | null;
  if (!Array.isArray(seed?.organizations) || !Array.isArray(seed.base_models)) {
    throw new Error(`seed file ${file}: expected "base_models" and "organizations" arrays`);
  }
  return seed;
}

/** A seed's rows, built before any is written: what the seed holds wrong fails here, not in the store. */
export interface SeedRows {
  models: ModelRecord[];
  organizations: Organization[];
}

/** The seed's rows; throws a DomainError or a TypeError for a seed that cannot be stored. */
export function seedRows(seed: Seed): SeedRows {
  const models = seed.base_models.map((m) => toModel(m, 'base'));
  const organizations = seed.organizations.map((o): Organization => {
    models.push(...(o.custom_models ?? []).map((m) => toModel(m, 'custom', o.id)));
    return {
      id: o.id,
      name: o.name,
      plan: {
        name: o.plan.name,
        storageCapImages: o.plan.storage_cap_images,
        monthlyAnalysisCap: o.plan.monthly_analysis_cap,
      },
      // The seed's well-known keys are stored like any other: hashed.
      apiKeys: o.api_keys.map(apiKeyRecord),
    };
  });
  return { models, organizations };
}

/** Organizations first: a custom model's row names its organization. */
export function applySeed(state: StateStore, rows: SeedRows): Promise<void> {
  return state.transaction(async () => {
    for (const o of rows.organizations) await state.organizations.insert(o);
    for (const m of rows.models) await state.models.add(m);
  });
}

/** What a model of the seed or the control plane could not run on (its parameters, its wait), by field. */
function modelProblem(m: SeedModel): string | undefined {
  if (m.engine !== 'remote') return thresholdParamsProblem(m.params);
  const timeout = m.timeout_ms === undefined ? undefined : remoteTimeoutProblem(m.timeout_ms);
  return timeout && `timeout_ms: ${timeout}`;
}

/** A model of the seed or the control plane, refused by field where it could not run. */
export function toModel(m: SeedModel, scope: 'base' | 'custom', organizationId?: string): ModelRecord {
  const problem = modelProblem(m);
  if (problem) throw new DomainError('invalid_input', `model ${m.name}: ${problem}`);
  const engine: ModelEngine =
    m.engine === 'remote'
      ? { kind: 'remote', url: String(m.url), timeoutMs: m.timeout_ms ?? 60_000, params: m.params ?? {} }
      : { kind: 'threshold', params: m.params as unknown as ThresholdParams };
  return {
    id: m.id,
    name: m.name,
    version: m.version,
    description: m.description,
    scope,
    organizationId,
    engine,
  };
}
