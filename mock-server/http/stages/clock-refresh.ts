import type { MockClock } from '../../domain/clock.js';
import type { OperationStage } from './operation-call.js';

/**
 * The mock clock read again before the request reads anything: instances sharing a store share its
 * clock. Read through the request's view, where the mock's own offset is kept under ''.
 */
export function clockRefresh(clock: Pick<MockClock, 'refresh'>): OperationStage {
  return async function refreshClock({ res, reads }) {
    await clock.refresh(res.locals.organizationId, { load: (orgId) => reads.clockOffsets.get(orgId ?? '') });
    return false;
  };
}
