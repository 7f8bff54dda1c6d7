import type { ApiRequest, ApiResponse } from './exchange.js';
import type { Organization } from '../domain/organizations.js';

/** What a handler receives: the validated request of one operation of the document. */
export interface OperationContext {
  operationId: string;
  req: ApiRequest;
  res: ApiResponse;
  /** The caller's organization; undefined only on operations without security (public pages). */
  org: Organization;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export type OperationHandler = (ctx: OperationContext) => Promise<void> | void;
