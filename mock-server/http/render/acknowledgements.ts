import type { operations as ControlOperations } from '../../../openapi/generated/mock-control-types.js';
import type { ApiSchemas } from '../api-schemas.js';

/** The short answers that carry no resource, typed from the documents like every other wire shape. */

type ControlAnswer<Id extends keyof ControlOperations> = ControlOperations[Id]['responses'] extends {
  200: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

export const uploadCompleted = (): ApiSchemas['CompleteUploadResponse'] => ({ status: 'processing' });
export const uploadAborted = (): ApiSchemas['AbortUploadResponse'] => ({ status: 'aborted' });
export const deleted = (): ApiSchemas['DeleteResponse'] => ({ success: true });

export const health = (): ControlAnswer<'mockHealth'> => ({ status: 'ok', version: '1.1.0' });
/** `reset` names the organization reset, or 'all'. */
export const resetDone = (reset: string): ControlAnswer<'mockReset'> => ({ reset });
export const apiKeyCreated = (key: {
  apiKey: string;
  id: string;
  prefix: string;
}): ControlAnswer<'mockCreateApiKey'> => ({ api_key: key.apiKey, id: key.id, prefix: key.prefix });
export const outcomeQueued = (): ControlAnswer<'mockForceOutcome'> => ({ queued: true });
export const faultsCleared = (count: number): ControlAnswer<'mockClearFaults'> => ({ cleared: count });
