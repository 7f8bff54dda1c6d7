/**
 * One operation of the document as `document-operations.ts` lays it out: every `$ref` resolved,
 * its path and method beside it, the path item's parameters merged in, the effective security and
 * the form of its 422.
 * The fields are the OpenAPI Operation Object's; only what the dispatcher reads is typed.
 */
export interface DocumentOperation {
  operationId: string;
  /** The path template, e.g. `/api/v1/upload/{image_id}`. */
  path: string;
  /** Lower case, as the document's keys are. */
  method: string;
  tags?: string[];
  parameters: OperationParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  /** Each requirement names schemes; an empty list means no credential. */
  security: Array<Record<string, string[]>>;
  /** How its 422 words validation errors: FastAPI's item list, or a sentence (`ValidationErrorString`). */
  validationStyle: ValidationStyle;
  [field: string]: unknown;
}

export type ValidationStyle = 'array' | 'string';

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: unknown;
  [field: string]: unknown;
}
