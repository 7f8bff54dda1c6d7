import { sendDetail } from '../error-responses.js';
import type { ApiRequest, ApiResponse } from '../exchange.js';
import { isJsonMediaType, mediaType } from '../json-body.js';
import type { DocumentOperation } from '../document-operation.js';
import type { StateStore } from '../../domain/state.js';
import type { RouteTable } from '../route-table.js';
import type { OperationCall, OperationFacts } from './operation-call.js';

/**
 * The first stage: the operation a request reaches, or 404 for an unknown path and 405 for a
 * known one asked with another method. It names the operation in the request's log line, and
 * opens the request's view of the state the stages after it read through.
 */
export function routeToOperation(
  routes: RouteTable,
  facts: Map<DocumentOperation, OperationFacts>,
  sharedReads: Pick<StateStore, 'requestReads'>,
) {
  return function route(req: ApiRequest, res: ApiResponse): OperationCall | undefined {
    const matched = routes.match(req.method as string, req.path);
    if (!matched.operation) {
      if (matched.pathKnown) sendDetail(res, 405, 'Method Not Allowed');
      else sendDetail(res, 404, 'Not Found');
      return undefined;
    }
    const { operation, params } = matched;
    const operationFacts = facts.get(operation) as OperationFacts;
    res.locals.operationId = operation.operationId;
    res.locals.pathTemplate = operation.path;
    return {
      req,
      res,
      operation,
      operationId: operation.operationId,
      facts: operationFacts,
      params,
      query: req.query,
      body: undefined,
      reads: sharedReads.requestReads(),
      // A JSON body to a streaming operation (POST /upload's JSON mode) is read and checked here.
      streaming: operationFacts.streams && !isJsonMediaType(mediaType(req)),
    };
  };
}
