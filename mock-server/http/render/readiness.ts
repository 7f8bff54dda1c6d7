import type { Exposure } from '../../control/readiness/exposure.js';
import type { ControlSchemas } from '../api-schemas.js';

/** An organization's exposure on the wire (`GET /__mock/org/readiness`). */
export function toReadinessResource(organizationId: string, e: Exposure): ControlSchemas['MockReadiness'] {
  return {
    organization_id: organizationId,
    requests: e.requests,
    since: e.since,
    overflowed: e.overflowed,
    operations: e.operations.map((o) => ({
      operation_id: o.operationId,
      calls: o.calls,
      documented_statuses: o.documented,
      received_statuses: o.received,
      not_received_statuses: o.notReceived,
    })),
    cases: e.cases.map((c) => ({
      id: c.id,
      title: c.title,
      applies: c.applies,
      met: c.met,
      evidence: c.evidence && {
        at: c.evidence.at,
        operation_id: c.evidence.operationId,
        status: c.evidence.status,
        path: c.evidence.path,
      },
    })),
  };
}
