import { randomBytes, randomUUID } from 'node:crypto';
import type { MockClock } from './clock.js';
import { monthOf } from './clock.js';
import { DomainError, notFound } from './errors.js';
import type { ImageService } from './images/image-service.js';
import type { ModelRecord } from './models/model-record.js';
import type { Organization, Plan } from './organizations.js';
import type { PredictionService } from './predictions/prediction-service.js';
import { addOrganization, toModel } from './seed.js';
import type { StateStore } from './state.js';

export interface OrganizationView {
  id: string;
  name: string;
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  api_keys: string[];
  usage: { images: number; analyses_this_month: number; month: string };
}

/** What the dashboard does in production: organizations, keys, plans, usage and custom models. */
export class OrganizationAdmin {
  constructor(
    private readonly state: StateStore,
    private readonly images: ImageService,
    private readonly predictions: PredictionService,
    private readonly clock: MockClock,
  ) {}

  get(id: string): Organization {
    const org = this.state.organizations.get(id);
    if (!org) throw notFound('Organization');
    return org;
  }

  view(org: Organization): OrganizationView {
    const month = monthOf(this.clock.now());
    return {
      id: org.id,
      name: org.name,
      plan: {
        name: org.plan.name,
        storage_cap_images: org.plan.storageCapImages,
        monthly_analysis_cap: org.plan.monthlyAnalysisCap,
      },
      api_keys: [...org.apiKeys],
      usage: {
        images: this.state.images.countOf(org.id),
        analyses_this_month: this.state.usage.analyses(org.id, month),
        month,
      },
    };
  }

  list(): OrganizationView[] {
    return this.state.organizations.all().map((o) => this.view(o));
  }

  create(input: {
    id?: string;
    name: string;
    plan: { name?: string; storage_cap_images: number; monthly_analysis_cap: number };
    api_keys?: string[];
  }): Organization {
    const id = input.id ?? randomUUID();
    const keys = input.api_keys?.length ? input.api_keys : [newKey()];
    return this.state.transaction(() => {
      if (this.state.organizations.get(id))
        throw new DomainError('invalid_state', `Organization ${id} already exists`);
      if (new Set(keys).size !== keys.length || keys.some((k) => this.state.organizations.keyTaken(k)))
        throw new DomainError('invalid_state', 'API key already in use');
      addOrganization(this.state, {
        id,
        name: input.name,
        plan: { name: input.plan.name ?? 'custom', ...input.plan },
        api_keys: keys,
      });
      return this.get(id);
    });
  }

  addKey(orgId: string): string {
    const key = newKey();
    this.state.transaction(() => this.state.organizations.addKey(this.get(orgId).id, key));
    return key;
  }

  setPlan(
    orgId: string,
    plan: { name?: string; storage_cap_images: number; monthly_analysis_cap: number },
  ): Organization {
    return this.state.transaction(() => {
      const org = this.get(orgId);
      this.state.organizations.setPlan(orgId, {
        name: plan.name ?? org.plan.name,
        storageCapImages: plan.storage_cap_images,
        monthlyAnalysisCap: plan.monthly_analysis_cap,
      } satisfies Plan);
      return this.get(orgId);
    });
  }

  setAnalysesThisMonth(orgId: string, count: number): Organization {
    return this.state.transaction(() => {
      const org = this.get(orgId);
      this.state.usage.setAnalyses(orgId, monthOf(this.clock.now()), count);
      return org;
    });
  }

  addModel(
    orgId: string,
    input: {
      id?: string;
      name: string;
      version?: string;
      description?: string;
      engine: 'threshold' | 'remote';
      params?: Record<string, unknown>;
      url?: string;
      timeout_ms?: number;
    },
  ): ModelRecord {
    this.get(orgId);
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
    this.state.transaction(() => {
      if (this.state.models.get(model.id))
        throw new DomainError('invalid_state', `Model ${model.id} already exists`);
      this.state.models.add(model);
    });
    return model;
  }

  /**
   * Removes the organization's images, predictions, segmentations and shares, and its usage: the
   * rows in one commit (a crash leaves the organization as it was or empty, never half reset),
   * then their files.
   */
  async resetOrganization(orgId: string): Promise<void> {
    this.get(orgId);
    await this.predictions.cancelOrganization(orgId);
    const removed = this.state.transaction(() => {
      const images = this.state.images.idsOf(orgId).map((id) => this.state.images.get(id)!);
      const segmentationIds = this.state.segmentations.idsOf(orgId);
      for (const id of this.state.shares.idsOf(orgId)) this.state.shares.delete(id);
      for (const id of segmentationIds) this.state.segmentations.delete(id);
      for (const id of this.state.predictions.idsOf(orgId)) this.state.predictions.delete(id);
      for (const image of images) this.state.images.delete(image.id);
      this.state.usage.clear(orgId);
      return { images, segmentationIds };
    });
    for (const image of removed.images) await this.images.removeFiles(image);
    for (const id of removed.segmentationIds) await this.predictions.deleteSegmentationFiles(id);
  }
}

const DEFAULT_THRESHOLD = {
  sigma: 1,
  polarity: 'bright',
  minAreaPx: 20,
  splitTouching: false,
  excludeBorderObjects: false,
};

function newKey(): string {
  return `sk_test_${randomBytes(16).toString('hex')}`;
}
