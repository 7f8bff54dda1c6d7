import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { DocumentOperation } from './document-operation.js';
import { requestMediaTypes } from '../../openapi/documents.js';
import type { createRequestCompilers } from './request-compilers.js';

type Json = Record<string, unknown>;

interface CompiledOperation {
  params: ValidateFunction | undefined;
  body: ValidateFunction | undefined;
}

export interface RequestParts {
  path: Record<string, string>;
  query: Record<string, unknown>;
  /** Undefined when the request had no body, or when its handler reads the body itself. */
  body: unknown;
  checkBody: boolean;
}

/**
 * Validates a request against its operation with validators compiled once per operation.
 * Ajv loads after the mock's first answer, in the background (`preload`), or with the first request
 * that has something to check, which waits for it: it was about 40 ms of a cold start, and an
 * operation with no parameters and no JSON body (GET /models, say) never needs it. openapi-backend's `validateRequest` re-parsed headers, cookies and path templates on
 * every request (a quarter of the throughput of a simple GET, measured). Error paths keep its
 * shape (`/path/x`, `/query/x`, `/requestBody/x`), which `validation-errors.ts` turns into
 * FastAPI-style items.
 */
export class RequestValidator {
  private readonly compiled = new Map<string, CompiledOperation>();
  private readonly operations = new Map<string, DocumentOperation>();
  private compilers: Promise<ReturnType<typeof createRequestCompilers>> | undefined;

  constructor(operations: DocumentOperation[]) {
    for (const operation of operations) this.operations.set(operation.operationId, operation);
  }

  /** Starts loading Ajv without waiting for it; a later failure shows at the first validation. */
  preload(): void {
    this.loadCompilers().catch(() => undefined);
  }

  async validate(operationId: string, request: RequestParts): Promise<ErrorObject[]> {
    const compiled = this.compiled.get(operationId) ?? (await this.compile(operationId));
    const errors: ErrorObject[] = [];
    if (compiled.params) {
      // copies (arrays too): coercion must not change what the handler receives
      const query: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(request.query))
        query[name] = Array.isArray(value) ? [...value] : value;
      if (!compiled.params({ path: { ...request.path }, query }))
        errors.push(...(compiled.params.errors ?? []));
    }
    if (request.checkBody && compiled.body) {
      const wrapped = request.body === undefined ? {} : { requestBody: request.body };
      if (!compiled.body(wrapped)) errors.push(...(compiled.body.errors ?? []));
    }
    return errors;
  }

  /**
   * Compiled at an operation's first request, not all at start-up: compiling every schema of the
   * document held back the mock's first answer, and a session touches a handful of operations.
   */
  private async compile(operationId: string): Promise<CompiledOperation> {
    const operation = this.operations.get(operationId);
    if (!operation) throw new Error(`no validator for operation ${operationId}`);
    const params = paramsSchema(operation);
    const body = bodySchema(operation);
    const compilers = params || body ? await this.loadCompilers() : undefined;
    // Another request of the same operation may have compiled it while this one waited.
    let compiled = this.compiled.get(operationId);
    if (compiled) return compiled;
    compiled = {
      params: params && compilers?.params.compile(params),
      body: body && compilers?.body.compile(body),
    };
    this.compiled.set(operationId, compiled);
    return compiled;
  }

  private loadCompilers() {
    this.compilers ??= import('./request-compilers.js').then((m) => m.createRequestCompilers());
    return this.compilers;
  }
}

/**
 * The path and query parameters' schema, or undefined for an operation that has none. It leaves
 * other query names open: unknown query parameters are ignored, as FastAPI does.
 */
function paramsSchema(operation: DocumentOperation): Json | undefined {
  const group = (where: 'path' | 'query') => {
    const declared = operation.parameters.filter((p) => p.in === where);
    return {
      type: 'object',
      properties: Object.fromEntries(declared.map((p) => [p.name, p.schema ?? {}])),
      required: declared.filter((p) => p.required).map((p) => p.name),
    };
  };
  if (!operation.parameters.some((p) => p.in === 'path' || p.in === 'query')) return undefined;
  return { type: 'object', properties: { path: group('path'), query: group('query') } };
}

function bodySchema(operation: DocumentOperation): Json | undefined {
  const { requestBody } = operation;
  const schema = requestMediaTypes(requestBody)['application/json']?.schema;
  if (!requestBody || !schema) return undefined;
  return {
    type: 'object',
    properties: { requestBody: schema },
    required: requestBody.required ? ['requestBody'] : [],
  };
}
