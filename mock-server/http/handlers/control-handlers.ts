import type { FaultControl } from '../../control/fault-control.js';
import type { ReadinessControl } from '../../control/readiness/readiness-control.js';
import type { ResetControl } from '../../control/reset-control.js';
import type { OperationHandler } from '../operation-context.js';
import { sendDetail } from '../error-responses.js';
import { faultsCleared, health, resetDone } from '../render/acknowledgements.js';
import { toFaultResource } from '../render/control.js';
import { toReadinessResource } from '../render/readiness.js';
import { organizationHandlers, type OrganizationUseCases } from './organization-handlers.js';
import { scopedControlHandlers, type ScopedControlUseCases } from './scoped-control-handlers.js';
import { standaloneControlDocument } from '../../../openapi/documents.js';

export interface ControlUseCases extends OrganizationUseCases, ScopedControlUseCases {
  resets: Pick<ResetControl, 'resetOrganization' | 'resetAll'>;
  faults: Pick<FaultControl, 'list' | 'add' | 'clear'>;
  readiness: Pick<ReadinessControl, 'exposure'>;
  settings: { publicBaseUrl: string };
}

type Body = Record<string, unknown>;
const bodyOrganization = ({ body }: { body: unknown }) =>
  (body as Body | undefined)?.organization_id as string | undefined;

/**
 * The control plane's operations (tag `mock-control` of the document): each parses its request,
 * calls one control use case (mock-server/control/) and renders the answer. The test helpers an
 * organization reaches with its own API key (`/__mock/org/...`) are the same use cases scoped to
 * the caller's organization (`org`, from the key): a prediction of another organization is not
 * found, and nothing in their requests names an organization.
 */
export function controlHandlers(
  useCases: ControlUseCases,
  /** Every operationId of the document: a fault may target only those. */
  operationIds: ReadonlySet<string>,
): Record<string, OperationHandler> {
  const { resets, faults, readiness, settings } = useCases;
  const scoped = scopedControlHandlers(useCases);
  let controlDocument: Record<string, unknown> | undefined;

  return {
    ...organizationHandlers(useCases),

    mockHealth({ res }) {
      res.json(health());
    },

    mockControlDocument({ res }) {
      controlDocument ??= standaloneControlDocument();
      res.json({ ...controlDocument, servers: [{ url: settings.publicBaseUrl }] });
    },

    async mockReset({ res, body }) {
      const orgId = bodyOrganization({ body });
      if (orgId) {
        await resets.resetOrganization(orgId);
        return void res.json(resetDone(orgId));
      }
      await resets.resetAll();
      res.json(resetDone('all'));
    },

    mockGetClock: scoped.readClock(() => undefined),
    mockSetClock: scoped.setClock(() => undefined),
    mockSetProgress: scoped.setProgress((ctx) => ({ organizationId: bodyOrganization(ctx) })),
    mockForceOutcome: scoped.forceOutcome((ctx) => ({ organizationId: bodyOrganization(ctx) })),
    mockJournal: scoped.readJournal(({ query }) => query.organization_id as string | undefined),

    mockOrgGetClock: scoped.readClock(({ org }) => org.id),
    mockOrgSetClock: scoped.setClock(({ org }) => org.id),
    mockOrgSetProgress: scoped.setProgress(({ org }) => ({ ownerId: org.id })),
    mockOrgForceOutcome: scoped.forceOutcome(({ org }) => ({ organizationId: org.id, ownerId: org.id })),
    mockOrgJournal: scoped.readJournal(({ org }) => org.id),

    async mockOrgReset({ res, org }) {
      await resets.resetOrganization(org.id);
      res.json(resetDone(org.id));
    },

    async mockOrgReadiness({ res, org }) {
      res.json(toReadinessResource(org.id, await readiness.exposure(org.id)));
    },

    async mockListFaults({ res }) {
      res.json((await faults.list()).map(toFaultResource));
    },

    async mockAddFault({ res, body }) {
      const input = body as Body;
      const operationId = String(input.operation_id);
      if (!operationIds.has(operationId))
        return sendDetail(
          res,
          422,
          `operation_id: '${operationId}' is not an operation of the document; one of ${[...operationIds].join(', ')}`,
        );
      const fault = await faults.add({
        operationId,
        status: input.status as number | undefined,
        detail: input.detail as string | undefined,
        latencyMs: input.latency_ms as number | undefined,
        dropConnection: input.drop_connection as boolean | undefined,
        times: input.times as number | undefined,
        probability: input.probability as number | undefined,
        organizationId: input.organization_id as string | undefined,
      });
      res.json(toFaultResource(fault));
    },

    async mockClearFaults({ res }) {
      res.json(faultsCleared(await faults.clear()));
    },
  };
}
