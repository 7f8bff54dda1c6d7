import type { FaultControl } from '../../control/fault-control.js';
import type { OperationHandler } from '../operation-context.js';
import { sendDetail } from '../error-responses.js';
import { faultsCleared } from '../render/acknowledgements.js';
import { toFaultResource } from '../render/control.js';

type Body = Record<string, unknown>;

/** The control plane's faults: each parses its request, calls one control use case and renders the answer. */
export function faultHandlers(
  faults: Pick<FaultControl, 'list' | 'add' | 'clear'>,
  /** Every operationId of the document: a fault may target only those. */
  operationIds: ReadonlySet<string>,
): Record<string, OperationHandler> {
  return {
    async mockListFaults({ res }) {
      res.json((await faults.list()).map(toFaultResource));
    },

    async mockAddFault({ res, body }) {
      const input = body as Body;
      const operationId = String(input.operation_id);
      if (!operationIds.has(operationId))
        return sendDetail(res, 422, `operation_id: '${operationId}' is not an operation of the document`);
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
