import type { DocumentOperation } from '../document-operation.js';
import type { ApiRequest, ApiResponse } from '../exchange.js';
import type { Organization } from '../../domain/organizations.js';
import type { RequestReads } from '../../domain/state.js';
import { requestMediaTypes } from '../../../openapi/documents.js';
import { isJsonMediaType } from '../json-body.js';

/**
 * One request to an operation of the document as it passes the stages: what routing found, then
 * what each stage adds (the caller's organization, the body).
 */
export interface OperationCall {
  req: ApiRequest;
  res: ApiResponse;
  operation: DocumentOperation;
  operationId: string;
  facts: OperationFacts;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** The query as node:querystring parses it (`req.query`). */
  query: Record<string, unknown>;
  /** What the stages read of the state (the key's organization, the clocks, the faults), for this request alone. */
  reads: RequestReads;
  /** Whether the handler reads the body itself (a multipart upload), so no stage may. */
  streaming: boolean;
  /** The key's organization and the key's id, once the key is checked; none on public operations. */
  org?: Organization;
  keyId?: string;
  /** The parsed JSON body; undefined without one, or when streaming. */
  body: unknown;
}

/**
 * One step of an operation's request. `true`: it answered the request, and the stages after it do
 * not run; `false`: the request goes on. A domain failure it throws is answered with its status.
 */
export type OperationStage = (call: OperationCall) => boolean | Promise<boolean>;

export type OperationFacts = ReturnType<typeof operationFacts>;

/** What the document says of an operation that its stages read: once per operation, not per request. */
export function operationFacts(operation: DocumentOperation) {
  const schemes = operation.security.flatMap((requirement) => Object.keys(requirement));
  return {
    /** It is the control plane's (`mockAdmin`): the operator's token opens it. */
    operatorOnly: schemes.includes('mockAdmin'),
    /** It needs an API key (`bearerAuth`, the document's scheme when the operation names none). */
    needsKey: schemes.includes('bearerAuth'),
    /** Tagged `internal`: in the document, not on the public surface. */
    internal: operation.tags?.includes('internal') ?? false,
    /** Its handler streams a body the document gives a non-JSON media type (multipart uploads, archives). */
    streams: Object.keys(requestMediaTypes(operation.requestBody)).some((type) => !isJsonMediaType(type)),
    /** Query parameters its handler validates itself (`x-validated-by-handler`), as `/query/<name>`. */
    byHandler: operation.parameters
      .filter((p) => p.in === 'query' && p['x-validated-by-handler'] === true)
      .map((p) => `/query/${p.name}`),
  };
}
