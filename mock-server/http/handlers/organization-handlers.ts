import type { OrganizationAdmin } from '../../domain/organization-admin.js';
import type { Organization } from '../../domain/organizations.js';
import type { ControlSchemas } from '../api-schemas.js';
import type { OperationHandler } from '../operation-context.js';
import { apiKeyCreated } from '../render/acknowledgements.js';
import { toCreatedOrganizationResource, toOrganizationResource } from '../render/control.js';
import { toModelResource } from '../render/model.js';

export interface OrganizationUseCases {
  organizations: Pick<
    OrganizationAdmin,
    | 'get'
    | 'list'
    | 'summary'
    | 'create'
    | 'addKey'
    | 'revokeKey'
    | 'setPlan'
    | 'setAnalysesThisMonth'
    | 'addModel'
  >;
}

type PlanBody = ControlSchemas['MockPlan'];

const toPlanInput = (plan: PlanBody) => ({
  name: plan.name,
  storageCapImages: plan.storage_cap_images,
  monthlyAnalysisCap: plan.monthly_analysis_cap,
});

/** The control plane's organizations: what production's dashboard does (keys, plans, usage, custom models). */
export function organizationHandlers({
  organizations,
}: OrganizationUseCases): Record<string, OperationHandler> {
  const resource = async (org: Promise<Organization>) =>
    toOrganizationResource(await organizations.summary(await org));
  return {
    async mockListOrganizations({ res }) {
      res.json((await organizations.list()).map(toOrganizationResource));
    },

    async mockCreateOrganization({ res, body }) {
      const input = body as { id?: string; name: string; plan: PlanBody; api_keys?: string[] };
      const created = await organizations.create({
        id: input.id,
        name: input.name,
        plan: toPlanInput(input.plan),
        apiKeys: input.api_keys,
      });
      res.json(
        toCreatedOrganizationResource(await organizations.summary(created.organization), created.apiKeys),
      );
    },

    async mockCreateApiKey({ res, params }) {
      res.json(apiKeyCreated(await organizations.addKey(params.organization_id)));
    },

    async mockRevokeApiKey({ res, params }) {
      await organizations.revokeKey(params.organization_id, params.key_id);
      res.json(await resource(organizations.get(params.organization_id)));
    },

    async mockSetPlan({ res, params, body }) {
      res.json(await resource(organizations.setPlan(params.organization_id, toPlanInput(body as PlanBody))));
    },

    async mockSetUsage({ res, params, body }) {
      const count = (body as { analyses_this_month: number }).analyses_this_month;
      res.json(await resource(organizations.setAnalysesThisMonth(params.organization_id, count)));
    },

    async mockCreateModel({ res, params, body }) {
      const input = body as Parameters<OrganizationAdmin['addModel']>[1];
      res.json(toModelResource(await organizations.addModel(params.organization_id, input)));
    },
  };
}
