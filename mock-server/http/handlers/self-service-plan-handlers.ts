import type { PlanBounds, SelfServicePlans } from '../../domain/self-service-plans.js';
import type { ControlSchemas } from '../api-schemas.js';
import type { OperationHandler } from '../operation-context.js';
import { toSelfServicePlanResource } from '../render/control.js';

export interface SelfServicePlanUseCases {
  selfServicePlans: Pick<SelfServicePlans, 'read' | 'allow' | 'withdraw' | 'setOwn'>;
}

const toBounds = (body: unknown): PlanBounds => ({
  storageCapImages: (body as ControlSchemas['MockPlanBounds']).storage_cap_images,
  monthlyAnalysisCap: (body as ControlSchemas['MockPlanBounds']).monthly_analysis_cap,
});

/**
 * Caps an organization sets itself where the operator allows it: the operator's bounds
 * (`/__mock/organizations/{id}/plan-bounds`) and the organization's own plan (`/__mock/org/plan`,
 * with its key; nothing in the request names an organization).
 */
export function selfServicePlanHandlers({
  selfServicePlans,
}: SelfServicePlanUseCases): Record<string, OperationHandler> {
  return {
    async mockSetPlanBounds({ res, params, body }) {
      res.json(
        toSelfServicePlanResource(await selfServicePlans.allow(params.organization_id, toBounds(body))),
      );
    },

    async mockRemovePlanBounds({ res, params }) {
      res.json(toSelfServicePlanResource(await selfServicePlans.withdraw(params.organization_id)));
    },

    async mockOrgGetPlan({ res, org }) {
      res.json(toSelfServicePlanResource(await selfServicePlans.read(org.id)));
    },

    async mockOrgSetPlan({ res, body, org }) {
      res.json(toSelfServicePlanResource(await selfServicePlans.setOwn(org.id, toBounds(body))));
    },
  };
}
