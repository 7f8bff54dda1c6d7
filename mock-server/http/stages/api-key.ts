import { authenticate } from '../bearer-auth.js';
import { sendDetail } from '../error-responses.js';
import type { OperationStage } from './operation-call.js';

/**
 * `Authorization: Bearer <API_KEY>` on the operations that need a key (401 without a known one):
 * the call and the request's log line learn the caller's organization.
 */
export const apiKey: OperationStage = async function checkApiKey(call) {
  if (!call.facts.needsKey) return false;
  const auth = await authenticate(call.req, call.reads);
  if (!auth.ok) {
    call.res.setHeader('WWW-Authenticate', 'Bearer');
    sendDetail(call.res, 401, auth.detail);
    return true;
  }
  call.org = auth.org;
  call.keyId = auth.keyId;
  call.res.locals.organizationId = auth.org.id;
  return false;
};
