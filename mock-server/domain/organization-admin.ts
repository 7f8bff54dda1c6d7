import { randomBytes, randomUUID } from 'node:crypto';
import type { MockClock } from './clock.js';
import { monthOf } from './clock.js';
import { DomainError, notFound } from './errors.js';
import type { ImageService } from './images/image-service.js';
import type { ModelRecord } from './models/model-record.js';
import type { Organization, Plan } from './organizations.js';
import type { PredictionService } from './predictions/prediction-service.js';
import { addOrganization, toModel } from './seed.js';
import type { MockState } from './state.js';

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
    private readonly state: MockState,
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
        images: this.state.imagesOf(org.id).length,
        analyses_this_month: org.analysesByMonth.get(month) ?? 0,
        month,
      },
    };
  }

  list(): OrganizationView[] {
    return [...this.state.organizations.values()].map((o) => this.view(o));
  }

  create(input: {
    id?: string;
    name: string;
    plan: { name?: string; storage_cap_images: number; monthly_analysis_cap: number };
    api_keys?: string[];
  }): Organization {
    const id = input.id ?? randomUUID();
    if (this.state.organizations.has(id))
      throw new DomainError('invalid_state', `Organization ${id} already exists`);
    const keys = input.api_keys?.length ? input.api_keys : [newKey()];
    const taken = keys.find((k) => this.state.apiKeys.has(k));
    if (taken) throw new DomainError('invalid_state', 'API key already in use');
    addOrganization(this.state, {
      id,
      name: input.name,
      plan: { name: input.plan.name ?? 'custom', ...input.plan },
      api_keys: keys,
    });
    return this.get(id);
  }

  addKey(orgId: string): string {
    const org = this.get(orgId);
    const key = newKey();
    org.apiKeys.push(key);
    this.state.apiKeys.set(key, org.id);
    return key;
  }

  setPlan(
    orgId: string,
    plan: { name?: string; storage_cap_images: number; monthly_analysis_cap: number },
  ): Organization {
    const org = this.get(orgId);
    org.plan = {
      name: plan.name ?? org.plan.name,
      storageCapImages: plan.storage_cap_images,
      monthlyAnalysisCap: plan.monthly_analysis_cap,
    } satisfies Plan;
    return org;
  }

  setAnalysesThisMonth(orgId: string, count: number): Organization {
    const org = this.get(orgId);
    org.analysesByMonth.set(monthOf(this.clock.now()), count);
    return org;
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
    this.state.models.add(model);
    return model;
  }

  /** Removes the organization's images, predictions, segmentations and shares, and its usage. */
  async resetOrganization(orgId: string): Promise<void> {
    const org = this.get(orgId);
    await this.predictions.cancelOrganization(orgId);
    for (const image of this.state.imagesOf(orgId)) await this.images.delete(org, image.id);
    for (const [id, p] of this.state.predictions)
      if (p.organizationId === orgId) this.state.predictions.delete(id);
    for (const [id, s] of this.state.segmentations) {
      if (s.organizationId !== orgId) continue;
      this.state.segmentations.delete(id);
      await this.predictions.deleteSegmentationFiles(s);
    }
    for (const [id, share] of this.state.shares) {
      if (share.organizationId !== orgId) continue;
      this.state.shares.delete(id);
      this.state.shareTokens.delete(share.token);
    }
    org.analysesByMonth.clear();
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
