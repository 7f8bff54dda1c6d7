import type { DocumentOperation } from './document-operation.js';
import { RequestValidator } from './request-validator.js';
import { sendDomainError } from './error-responses.js';
import type { DiscardLimits } from './discard-rest.js';
import type { JsonBodyLimits } from './json-body.js';
import type { OperationContext, OperationHandler } from './operation-context.js';
import type { ApiRequest, ApiResponse } from './exchange.js';
import type { RouteTable } from './route-table.js';
import type { HttpUseCases } from './use-cases.js';
import { operationFacts, type OperationFacts, type OperationStage } from './stages/operation-call.js';
import { routeToOperation } from './stages/route.js';
import { operatorToken } from './stages/operator-token.js';
import { apiKey } from './stages/api-key.js';
import { keyRate } from './stages/key-rate.js';
import { clockRefresh } from './stages/clock-refresh.js';
import { injectedFault } from './stages/injected-fault.js';
import { publicSurface } from './stages/public-surface.js';
import { requestBody } from './stages/request-body.js';
import { requestValidation } from './stages/request-validation.js';

/** The use cases the stages call (use-cases.ts says what each is for), and what bounds them. */
export type DispatcherOptions = Pick<HttpUseCases, 'sharedReads' | 'rateLimit' | 'timekeeper'> & {
  /** Token the control plane (`mockAdmin` scheme) requires; empty leaves it open. */
  adminToken: string;
  handlers: Record<string, OperationHandler>;
  /** Size, nesting and key-count bounds of every JSON body, checked before it is parsed. */
  jsonLimits: JsonBodyLimits;
  /** How much of a refused body is read and dropped so that its client can read the answer. */
  discardLimits: DiscardLimits;
};

/**
 * Every operation of the document, as a pipeline of stages (stages/) in the order a request meets
 * them, FastAPI's order for what FastAPI also checks: route (404/405), the operator's token and the
 * API key (401/403), the key's rate (429), the clock, an injected fault, the public surface (403),
 * the JSON body (413/422), parameter and body validation (422 in the operation's style), then the
 * operation's handler. A stage that answers ends the request; a domain failure thrown by any is
 * answered with its status, anything else rethrown, for the request function's 500.
 */
export function createDispatcher(
  routes: RouteTable,
  operations: DocumentOperation[],
  options: DispatcherOptions,
) {
  const facts = new Map<DocumentOperation, OperationFacts>(operations.map((o) => [o, operationFacts(o)]));
  // An operation tagged `internal` has no handler: publicSurface answers it 403 once the key is valid.
  const missing = operations
    .filter((o) => !facts.get(o)!.internal && !options.handlers[o.operationId])
    .map((o) => o.operationId);
  if (missing.length) throw new Error(`no handler for operation(s): ${missing.join(', ')}`);
  const validator = new RequestValidator(operations);
  // After the requests already waiting for the app have been answered.
  setImmediate(() => validator.preload());
  const route = routeToOperation(routes, facts, options.sharedReads);
  const stages: OperationStage[] = [
    operatorToken(options.adminToken),
    apiKey,
    keyRate(options.rateLimit),
    clockRefresh(options.timekeeper),
    injectedFault,
    publicSurface,
    requestBody(options.jsonLimits, options.discardLimits),
    requestValidation(validator),
    async function callHandler(call) {
      await options.handlers[call.operationId](call as OperationContext);
      return true;
    },
  ];

  return async function dispatch(req: ApiRequest, res: ApiResponse): Promise<void> {
    try {
      const call = route(req, res);
      if (!call) return;
      await call.reads.within(async () => {
        for (const stage of stages) if (await stage(call)) return;
      });
    } catch (err) {
      if (sendDomainError(res, err)) return;
      throw err;
    }
  };
}
