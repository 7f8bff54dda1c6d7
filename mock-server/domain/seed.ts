import { apiKeyRecord } from './api-keys.js';
import { thresholdParamsProblem, type ThresholdParams } from '../engines/segmentation/threshold-segmenter.js';
import { remoteTimeoutProblem } from '../engines/models/remote-model.js';
import { DomainError } from './errors.js';
import type { ModelEngine, ModelRecord } from './models/model-record.js';
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

export function applySeed(state: StateStore, seed: Seed): Promise<void> {
  return state.transaction(async () => {
    for (const m of seed.base_models) await state.models.add(toModel(m, 'base'));
    for (const o of seed.organizations) await addOrganization(state, o);
  });
}

export function addOrganization(state: StateStore, o: SeedOrganization): Promise<void> {
  return state.transaction(async () => {
    await state.organizations.insert({
      id: o.id,
      name: o.name,
      plan: {
        name: o.plan.name,
        storageCapImages: o.plan.storage_cap_images,
        monthlyAnalysisCap: o.plan.monthly_analysis_cap,
      },
      // The seed's well-known keys are stored like any other: hashed.
      apiKeys: o.api_keys.map(apiKeyRecord),
    });
    for (const m of o.custom_models ?? []) await state.models.add(toModel(m, 'custom', o.id));
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
