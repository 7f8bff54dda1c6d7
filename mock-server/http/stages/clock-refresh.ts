import type { MockClock } from '../../domain/clock.js';
import type { OperationStage } from './operation-call.js';

/** The mock clock read again before the request reads anything: instances sharing a store share its clock. */
export function clockRefresh(clock: Pick<MockClock, 'refresh'>): OperationStage {
  return async function refreshClock({ res }) {
    await clock.refresh(res.locals.organizationId);
    return false;
  };
}
