import { createHash } from 'node:crypto';
import type { ApiClient } from '../harness/api-client.js';
import type { Capability } from '../harness/target.js';
import type { components } from '../../openapi/generated/mock-control-types.js';

type MockOrganization = components['schemas']['MockOrganization'];
export type ProviderState = { name: string; params?: Record<string, unknown> };

/** A state set up: undo it once its interaction has run. */
export type Setup = { teardown: () => Promise<void> } | { skip: string };

const STORAGE_CAP = 'organization at its storage cap';
const ANALYSIS_CAP = 'organization at its monthly analysis cap';
const FAULT = /^(\w+) answers (\d{3}) once \(an injected fault\)$/;

/** What a state needs of the run's safety profile besides `control`. */
function needs(state: ProviderState): Capability[] {
  return state.name === STORAGE_CAP || state.name === ANALYSIS_CAP ? ['control', 'caps'] : ['control'];
}

/**
 * Sets up the provider states the recorder names (record.ts) through the target's control plane,
 * as the organization of the run's main key; where the profile does not allow it, or the target
 * has no control plane (staging, production), answers why the interaction is skipped.
 */
export class ProviderStates {
  private controlPlane?: Promise<string | undefined>;

  constructor(
    private readonly api: ApiClient,
    private readonly capabilities: Set<Capability>,
  ) {}

  async setUp(state: ProviderState): Promise<Setup> {
    const known = state.name === STORAGE_CAP || state.name === ANALYSIS_CAP || FAULT.test(state.name);
    if (!known) return { skip: `provider state '${state.name}' is not one this verifier can set up` };
    for (const capability of needs(state))
      if (!this.capabilities.has(capability))
        return {
          skip: `provider state '${state.name}' needs '${capability}', not enabled for this profile (--enable ${capability})`,
        };
    const missing = await (this.controlPlane ??= this.probe());
    if (missing) return { skip: `provider state '${state.name}' needs a control plane: ${missing}` };
    const organization = await this.organization();
    const id = organization.id;
    if (state.name === STORAGE_CAP) {
      await this.control(
        'mockSetPlan',
        { organization_id: id },
        { ...organization.plan, storage_cap_images: 0 },
      );
      return { teardown: () => this.control('mockSetPlan', { organization_id: id }, organization.plan) };
    }
    if (state.name === ANALYSIS_CAP) {
      const cap = organization.plan.monthly_analysis_cap;
      await this.control('mockSetUsage', { organization_id: id }, { analyses_this_month: cap });
      const before = organization.usage.analyses_this_month;
      return {
        teardown: () =>
          this.control('mockSetUsage', { organization_id: id }, { analyses_this_month: before }),
      };
    }
    const [, operationId, status] = FAULT.exec(state.name)!;
    await this.control(
      'mockAddFault',
      {},
      { operation_id: operationId, status: Number(status), times: 1, organization_id: id },
    );
    return { teardown: async () => {} };
  }

  /** Why the target has no control plane to use, or undefined when it has one. */
  private async probe(): Promise<string | undefined> {
    try {
      const health = await this.api.call('mockHealth', this.admin({ unvalidated: true }));
      return health.status === 200 ? undefined : `GET /__mock/health answered ${health.status}`;
    } catch (err) {
      return `GET /__mock/health got no answer: ${(err as Error).message}`;
    }
  }

  /** The main key's organization, found by its key id (`key_` and 16 hex digits of the key's SHA-256). */
  private async organization(): Promise<MockOrganization> {
    const listed = await this.api.call<MockOrganization[]>('mockListOrganizations', this.admin());
    if (listed.status !== 200) throw new Error(`GET /__mock/organizations answered ${listed.status}`);
    const keyId = `key_${createHash('sha256').update(this.api.key).digest('hex').slice(0, 16)}`;
    const mine = listed.body.find((o) => o.keys.some((k) => k.id === keyId));
    if (!mine) throw new Error("the control plane lists no organization with the run's key");
    return mine;
  }

  private async control(operationId: string, params: Record<string, string>, body: unknown): Promise<void> {
    const response = await this.api.call(operationId, this.admin({ params, body }));
    if (response.status !== 200 && response.status !== 201)
      throw new Error(`setting up a provider state: ${operationId} answered ${response.status}`);
  }

  private admin<T extends object>(options?: T) {
    return {
      ...options,
      key: this.api.target.adminToken ?? null,
      baseUrl: this.api.target.directBaseUrl,
    };
  }
}
