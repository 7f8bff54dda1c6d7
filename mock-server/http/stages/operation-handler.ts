import type { OperationHandler } from '../operation-context.js';
import type { OperationStage } from './operation-call.js';

/** The last stage: the operation's handler, with the request every stage before it let through. */
export function operationHandler(handlers: Record<string, OperationHandler>): OperationStage {
  return async function callHandler({ req, res, operationId, org, params, body }) {
    await handlers[operationId]({
      operationId,
      req,
      res,
      // Undefined only on operations without security (public pages), whose handlers never read it.
      org: org as NonNullable<typeof org>,
      params,
      query: req.query as Record<string, unknown>,
      body,
    });
    return true;
  };
}
