import type { RequestRateLimit } from '../../domain/abuse-limits.js';
import type { OperationStage } from './operation-call.js';

/** Counts each request made with an API key; one past the key's rate is refused (429, thrown). */
export function keyRate(rateLimit: Pick<RequestRateLimit, 'admit'>): OperationStage {
  return async function admitToKeyRate({ keyId }) {
    if (keyId !== undefined) await rateLimit.admit(keyId);
    return false;
  };
}
