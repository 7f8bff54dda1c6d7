/**
 * One operation of the document as `document-operations.ts` lays it out: every `$ref` resolved,
 * its path and method beside it, the path item's parameters merged in and the effective security.
 * The fields are the OpenAPI Operation Object's; only what the dispatcher reads is typed.
 */
export interface DocumentOperation {
  operationId: string;
  /** The path template, e.g. `/api/v1/upload/{image_id}`. */
  path: string;
  /** Lower case, as the document's keys are. */
  method: string;
  summary?: string;
  tags?: string[];
  parameters: OperationParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  /** Each requirement names schemes; an empty list means no credential. */
  security: Array<Record<string, string[]>>;
  [field: string]: unknown;
}

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: unknown;
  [field: string]: unknown;
}
