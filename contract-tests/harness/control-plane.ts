import type { ApiClient } from './api-client.js';
import type { CheckContext } from './check.js';
import { need } from './steps.js';
import type { components } from '../../openapi/generated/mock-control-types.js';

type MockOrganization = components['schemas']['MockOrganization'];
/** Its keys come in clear in this answer only; no later read lists them. */
type MockCreatedOrganization = components['schemas']['MockCreatedOrganization'];
export type Usage = MockOrganization['usage'];

export interface ThrowawayOrganization {
  id: string;
  /** The organization's own key, worthless once the check resets it. */
  key: string;
  /** A client with the organization's own key. */
  client: ApiClient;
  /** The organization's counters, as the mock's control plane reports them. */
  usage(): Promise<Usage>;
  /** A client with a key added to the organization (a second key of its own, as a team hands out). */
  addKey(): Promise<ApiClient>;
  /** How this organization's predictions progress (delays, polls before completing). */
  progress(settings: Partial<Omit<components['schemas']['MockProgress'], 'organization_id'>>): Promise<void>;
}

/**
 * A throw-away organization with a known plan, made through the mock's control plane (profile
 * `control`), so a check can pin a cap at its exact boundary and read every counter without
 * sharing them with another check. The control plane is the mock's own, never behind Prism: it is
 * called on the target directly, and its answers are validated like the API's.
 */
export async function throwawayOrganization(
  ctx: CheckContext,
  label: string,
  plan: { storage_cap_images: number; monthly_analysis_cap: number },
): Promise<ThrowawayOrganization> {
  const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
  const created = need(
    await ctx.api.call<MockCreatedOrganization>('mockCreateOrganization', {
      ...admin,
      body: { name: `${ctx.target.namePrefix}${label}`, plan: { name: label, ...plan } },
    }),
    200,
    ['id', 'api_keys.0'],
  );
  const id = created.body.id;
  ctx.cleanup.add(() =>
    ctx.api.call('mockReset', { ...admin, body: { organization_id: id }, unvalidated: true }),
  );
  return {
    id,
    key: created.body.api_keys[0],
    client: ctx.clientFor(created.body.api_keys[0]),
    async usage() {
      const listed = need(await ctx.api.call<MockOrganization[]>('mockListOrganizations', admin), 200);
      const mine = listed.body.find((o) => o.id === id);
      if (!mine) throw new Error(`organization ${id} is no longer listed`);
      return mine.usage;
    },
    async addKey() {
      const added = need(
        await ctx.api.call<{ api_key: string }>('mockCreateApiKey', {
          ...admin,
          params: { organization_id: id },
        }),
        200,
        ['api_key'],
      );
      return ctx.clientFor(added.body.api_key);
    },
    async progress(settings) {
      need(
        await ctx.api.call('mockSetProgress', {
          ...admin,
          body: { organization_id: id, ...settings },
        }),
        200,
      );
    },
  };
}
