import { authenticate, isAdminToken } from '../bearer-auth.js';
import { sendDetail } from '../error-responses.js';
import type { OperationStage } from './operation-call.js';

const OPERATOR_ONLY =
  "This control route is the operator's (admin token); an organization's key reaches its own test helpers under /__mock/org";

/**
 * The control plane's operations (`mockAdmin`) need the operator's token when one is set (empty
 * leaves them open): 401 without it, 403 for an organization's key, which is told it is known but
 * not allowed, since its own helpers are under /__mock/org.
 */
export function operatorToken(adminToken: string): OperationStage {
  return async function checkOperatorToken({ req, res, facts, reads }) {
    if (!facts.operatorOnly || !adminToken || isAdminToken(req.headers.authorization, adminToken))
      return false;
    if ((await authenticate(req, reads)).ok) {
      sendDetail(res, 403, OPERATOR_ONLY);
      return true;
    }
    res.setHeader('WWW-Authenticate', 'Bearer');
    sendDetail(res, 401, 'The control plane needs Authorization: Bearer <admin token>');
    return true;
  };
}
