import type { OrganizationAdmin } from '../../domain/organization-admin.js';
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

type PlanBody = { name?: string; storage_cap_images: number; monthly_analysis_cap: number };

const toPlanInput = (plan: PlanBody) => ({
  name: plan.name,
  storageCapImages: plan.storage_cap_images,
  monthlyAnalysisCap: plan.monthly_analysis_cap,
});

/** The control plane's organizations: what production's dashboard does (keys, plans, usage, custom models). */
export function organizationHandlers({
  organizations,
}: OrganizationUseCases): Record<string, OperationHandler> {
  const resource = (org: Parameters<OrganizationAdmin['summary']>[0]) =>
    toOrganizationResource(organizations.summary(org));
  return {
    mockListOrganizations({ res }) {
      res.json(organizations.list().map(toOrganizationResource));
    },

    mockCreateOrganization({ res, body }) {
      const input = body as { id?: string; name: string; plan: PlanBody; api_keys?: string[] };
      const created = organizations.create({
        id: input.id,
        name: input.name,
        plan: toPlanInput(input.plan),
        apiKeys: input.api_keys,
      });
      res.json(toCreatedOrganizationResource(organizations.summary(created.organization), created.apiKeys));
    },

    mockCreateApiKey({ res, params }) {
      res.json(apiKeyCreated(organizations.addKey(params.organization_id)));
    },

    mockRevokeApiKey({ res, params }) {
      organizations.revokeKey(params.organization_id, params.key_id);
      res.json(resource(organizations.get(params.organization_id)));
    },

    mockSetPlan({ res, params, body }) {
      res.json(resource(organizations.setPlan(params.organization_id, toPlanInput(body as PlanBody))));
    },

    mockSetUsage({ res, params, body }) {
      const count = (body as { analyses_this_month: number }).analyses_this_month;
      res.json(resource(organizations.setAnalysesThisMonth(params.organization_id, count)));
    },

    mockCreateModel({ res, params, body }) {
      const input = body as Parameters<OrganizationAdmin['addModel']>[1];
      res.json(toModelResource(organizations.addModel(params.organization_id, input)));
    },
  };
}
