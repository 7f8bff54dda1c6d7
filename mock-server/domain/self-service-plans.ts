import { DomainError } from './errors.js';
import type { OrganizationAdmin } from './organization-admin.js';
import type { Plan, PlanBounds } from './organization-record.js';
import { underOrganizationLock } from './organizations.js';
import type { StateStore } from './state.js';

export type { PlanBounds };

/** An organization's plan and the bounds within which it may change it (null: it may not). */
export interface SelfServicePlan {
  plan: Plan;
  bounds: PlanBounds | null;
}

/**
 * An organization setting its own caps with its own key (`PUT /__mock/org/plan`), where the
 * operator allows it: only once the operator has set bounds for it, and only within them. The
 * bounds are a row of the state store (every instance reads the same), and each change is
 * checked against them under the organization's lock, so a change and a withdrawal never cross.
 * A full reset of the mock removes every bound; an organization's own reset keeps them.
 */
export class SelfServicePlans {
  constructor(
    private readonly state: StateStore,
    private readonly admin: Pick<OrganizationAdmin, 'get' | 'setPlan'>,
  ) {}

  async read(orgId: string): Promise<SelfServicePlan> {
    const org = await this.admin.get(orgId);
    return { plan: org.plan, bounds: await this.bounds(orgId) };
  }

  /** The operator allows the organization to set its caps up to `bounds`. */
  allow(orgId: string, bounds: PlanBounds): Promise<SelfServicePlan> {
    return underOrganizationLock(this.state, orgId, async () => {
      await this.admin.get(orgId);
      await this.state.planBounds.set(orgId, bounds);
      return this.read(orgId);
    });
  }

  /** The operator withdraws it; the caps the organization set stay as they are. */
  withdraw(orgId: string): Promise<SelfServicePlan> {
    return underOrganizationLock(this.state, orgId, async () => {
      await this.admin.get(orgId);
      await this.state.planBounds.delete(orgId);
      return this.read(orgId);
    });
  }

  /** The organization sets its own caps: refused (forbidden) without bounds, or past one. */
  setOwn(orgId: string, caps: PlanBounds): Promise<SelfServicePlan> {
    return underOrganizationLock(this.state, orgId, async () => {
      const bounds = await this.bounds(orgId);
      if (!bounds)
        throw new DomainError(
          'forbidden',
          "The operator has not allowed this organization to set its own caps; ask the sandbox's operator.",
        );
      const past = (['storageCapImages', 'monthlyAnalysisCap'] as const).find(
        (cap) => caps[cap] > bounds[cap],
      );
      if (past) {
        const field = past === 'storageCapImages' ? 'storage_cap_images' : 'monthly_analysis_cap';
        throw new DomainError(
          'forbidden',
          `${field}: the operator allows this organization at most ${bounds[past]}, and ${caps[past]} was asked.`,
        );
      }
      await this.admin.setPlan(orgId, caps);
      return this.read(orgId);
    });
  }

  private async bounds(orgId: string): Promise<PlanBounds | null> {
    return (await this.state.planBounds.get(orgId)) ?? null;
  }
}
