import { sendDetail } from '../error-responses.js';
import type { OperationStage } from './operation-call.js';

/** Operations tagged `internal` are in the document but not on the public surface: 403. */
export const publicSurface: OperationStage = function refuseInternal({ res, facts }) {
  if (!facts.internal) return false;
  sendDetail(res, 403, 'This endpoint is not part of the public API.');
  return true;
};
