import { randomUUID } from 'node:crypto';
import { apiKeyRecord, hashApiKey, newApiKey } from './api-keys.js';
import { monthOf, type MockClock } from './clock.js';
import { DomainError, notFound } from './errors.js';
import type { ImageService } from './images/image-service.js';
import type { ModelRecord } from './models/model-record.js';
import { underOrganizationLock, type Organization, type Plan } from './organizations.js';
import type { PredictionService } from './predictions/prediction-service.js';
import { toModel, type SeedModel } from './seed.js';
import type { StateStore } from './state.js';

/** An organization with what it uses this month: what the control plane lists. */
export interface OrganizationSummary {
  organization: Organization;
  usage: { images: number; analysesThisMonth: number; month: string };
}

/** A plan as the control plane sets it; a plan without a name keeps the current one ('custom' when new). */
export type PlanInput = Omit<Plan, 'name'> & { name?: string };

export interface NewOrganization {
  id?: string;
  name: string;
  plan: PlanInput;
  apiKeys?: string[];
}

/** What a new custom model may leave out: a new id, version 1.0.0, no description. */
type Defaulted = 'id' | 'version' | 'description';

/** What the dashboard does in production: organizations, keys, plans, usage and custom models. */
export class OrganizationAdmin {
  constructor(
    private readonly state: StateStore,
    private readonly images: ImageService,
    private readonly predictions: PredictionService,
    private readonly clock: MockClock,
  ) {}

  async get(id: string): Promise<Organization> {
    const org = await this.state.organizations.get(id);
    if (!org) throw notFound('Organization');
    return org;
  }

  async summary(org: Organization): Promise<OrganizationSummary> {
    const month = monthOf(this.clock.now(org.id));
    return {
      organization: org,
      usage: {
        images: await this.state.images.countOf(org.id),
        analysesThisMonth: await this.state.usage.analyses(org.id, month),
        month,
      },
    };
  }

  async list(): Promise<OrganizationSummary[]> {
    const summaries = [];
    for (const org of await this.state.organizations.all()) summaries.push(await this.summary(org));
    return summaries;
  }

  /** The new organization, and its keys in clear: the only time they are ever shown. */
  create(input: NewOrganization): Promise<{ organization: Organization; apiKeys: string[] }> {
    const id = input.id ?? randomUUID();
    const keys = input.apiKeys?.length ? input.apiKeys : [newApiKey()];
    return this.state.transaction(async () => {
      if (await this.state.organizations.get(id))
        throw new DomainError('conflict', `Organization ${id} already exists`);
      let taken = new Set(keys).size !== keys.length;
      for (const k of keys) taken ||= await this.state.organizations.keyTaken(hashApiKey(k));
      if (taken) throw new DomainError('conflict', 'API key already in use');
      const plan = planOf(input.plan, 'custom');
      await this.state.organizations.insert({ id, name: input.name, plan, apiKeys: keys.map(apiKeyRecord) });
      return { organization: await this.get(id), apiKeys: keys };
    });
  }

  /** A new key for the organization (rotation: add one, move clients to it, revoke the old). Shown once. */
  async addKey(orgId: string): Promise<{ apiKey: string; id: string; prefix: string }> {
    const apiKey = newApiKey();
    const record = apiKeyRecord(apiKey);
    await this.state.transaction(async () =>
      this.state.organizations.addKey((await this.get(orgId)).id, record),
    );
    return { apiKey, id: record.id, prefix: record.prefix };
  }

  /** Revokes a key by its id: the next request that presents it answers 401. */
  revokeKey(orgId: string, keyId: string): Promise<void> {
    return this.state.transaction(async () => {
      await this.get(orgId);
      if (!(await this.state.organizations.removeKey(orgId, keyId))) throw notFound('API key');
    });
  }

  setPlan(orgId: string, plan: PlanInput): Promise<Organization> {
    return underOrganizationLock(this.state, orgId, async () => {
      await this.state.organizations.setPlan(orgId, planOf(plan, (await this.get(orgId)).plan.name));
      return this.get(orgId);
    });
  }

  setAnalysesThisMonth(orgId: string, count: number): Promise<Organization> {
    return underOrganizationLock(this.state, orgId, async () => {
      const org = await this.get(orgId);
      await this.state.usage.setAnalyses(orgId, monthOf(this.clock.now(orgId)), count);
      return org;
    });
  }

  async addModel(
    orgId: string,
    input: Omit<SeedModel, Defaulted> & Partial<Pick<SeedModel, Defaulted>>,
  ): Promise<ModelRecord> {
    await this.get(orgId);
    if (input.engine === 'remote' && !input.url)
      throw new DomainError('invalid_input', "url: a remote model needs the worker's url");
    const params =
      input.engine === 'threshold' ? { ...DEFAULT_THRESHOLD, ...(input.params ?? {}) } : input.params;
    const model = toModel(
      {
        id: input.id ?? randomUUID(),
        name: input.name,
        version: input.version ?? '1.0.0',
        description: input.description ?? '',
        engine: input.engine,
        params,
        url: input.url,
        timeout_ms: input.timeout_ms,
      },
      'custom',
      orgId,
    );
    await this.state.transaction(async () => {
      if (await this.state.models.get(model.id))
        throw new DomainError('invalid_state', `Model ${model.id} already exists`);
      await this.state.models.add(model);
    });
    return model;
  }

  /**
   * Removes the organization's images, predictions, segmentations and shares, and its usage: the
   * rows in one commit (a crash leaves the organization as it was or empty, never half reset),
   * then their files.
   */
  async resetOrganization(orgId: string): Promise<void> {
    await this.get(orgId);
    await this.predictions.cancelOrganization(orgId);
    const removed = await underOrganizationLock(this.state, orgId, async () => {
      const images = [];
      const segmentationIds = [];
      for (const id of await this.state.images.idsOf(orgId)) {
        const image = await this.state.images.get(id);
        if (image) images.push(image);
        segmentationIds.push(...(await this.images.deleteRows(id)).segmentationIds);
      }
      await this.state.usage.clear(orgId);
      return { images, segmentationIds };
    });
    for (const image of removed.images) await this.images.removeFiles(image);
    await this.predictions.forget({ predictionIds: [], segmentationIds: removed.segmentationIds });
  }
}

/** The plan a control-plane input sets: without a name, it keeps `name`. */
function planOf(input: PlanInput, name: string): Plan {
  return {
    name: input.name ?? name,
    storageCapImages: input.storageCapImages,
    monthlyAnalysisCap: input.monthlyAnalysisCap,
  };
}

const DEFAULT_THRESHOLD = {
  sigma: 1,
  polarity: 'bright',
  minAreaPx: 20,
  splitTouching: false,
  excludeBorderObjects: false,
};
