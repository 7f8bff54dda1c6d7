import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { DocumentOperation } from './document-operation.js';
import { requestMediaTypes } from '../../openapi/documents.js';
import type { createRequestCompilers } from './request-compilers.js';
import { readNumber, type NumberKind } from './lax-numbers.js';

type Json = Record<string, unknown>;

interface CompiledOperation {
  params: ValidateFunction | undefined;
  body: ValidateFunction | undefined;
  /** Its integer and number parameters, read as pydantic reads them before the schema's bounds. */
  numbers: NumberParameter[];
}

interface NumberParameter {
  where: 'path' | 'query';
  name: string;
  kind: NumberKind;
  schema: Json;
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
      const copies = { path: { ...request.path } as Record<string, unknown>, query };
      const unread = readNumbers(compiled.numbers, copies, errors);
      if (!compiled.params(copies))
        errors.push(...(compiled.params.errors ?? []).filter((e) => !unread.has(missingAt(e))));
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
      numbers: numberParameters(operation),
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

function numberParameters(operation: DocumentOperation): NumberParameter[] {
  const numbers: NumberParameter[] = [];
  for (const p of operation.parameters) {
    const schema = (p.schema ?? {}) as Json;
    if ((p.in === 'path' || p.in === 'query') && (schema.type === 'integer' || schema.type === 'number'))
      numbers.push({ where: p.in, name: p.name, kind: schema.type, schema });
  }
  return numbers;
}

/**
 * Reads each integer and number parameter sent as one string as pydantic 2 does (lax-numbers.ts),
 * in place of Ajv's coercion, which reads `0x1` as 1 and a blank as 0: a number read goes on to the
 * schema's bounds; a string it cannot read is refused with pydantic's type and leaves the copies.
 * Infinity and NaN, which pydantic reads as floats, meet the bounds here, in pydantic's order (le
 * before ge, the first one failed), since a JSON Schema number is finite. Returns where the values
 * taken out were, so that a required one is not reported missing as well.
 */
function readNumbers(
  numbers: NumberParameter[],
  copies: Record<'path' | 'query', Record<string, unknown>>,
  errors: ErrorObject[],
): Set<string> {
  const unread = new Set<string>();
  for (const { where, name, kind, schema } of numbers) {
    const value = copies[where][name];
    if (typeof value !== 'string') continue;
    const instancePath = `/${where}/${name}`;
    const read = readNumber(kind, value);
    if (typeof read === 'number' && Number.isFinite(read)) {
      copies[where][name] = read;
      continue;
    }
    delete copies[where][name];
    unread.add(instancePath);
    const error = typeof read === 'number' ? boundRefusal(read, schema) : read;
    if (error) errors.push(refusalAt(instancePath, error));
  }
  return unread;
}

/** The first bound a non-finite number fails, as pydantic-core's constrained float checks them. */
function boundRefusal(value: number, schema: Json): { keyword: string; limit: number } | undefined {
  const bounds: [string, (limit: number) => boolean][] = [
    ['maximum', (le) => value <= le],
    ['exclusiveMaximum', (lt) => value < lt],
    ['minimum', (ge) => value >= ge],
    ['exclusiveMinimum', (gt) => value > gt],
  ];
  for (const [keyword, holds] of bounds) {
    const limit = schema[keyword];
    if (typeof limit === 'number' && !holds(limit)) return { keyword, limit };
  }
  return undefined;
}

function refusalAt(
  instancePath: string,
  refusal: { keyword: string; limit: number } | { type: string; msg: string },
): ErrorObject {
  if ('keyword' in refusal)
    return { keyword: refusal.keyword, instancePath, schemaPath: '', params: { limit: refusal.limit } };
  return { keyword: refusal.type, instancePath, schemaPath: '', params: {}, message: refusal.msg };
}

/** Where a `required` error says a value is missing (`/query/name`), or '' for another error. */
function missingAt(error: ErrorObject): string {
  const missing = (error.params as { missingProperty?: unknown }).missingProperty;
  return error.keyword === 'required' ? `${error.instancePath}/${String(missing)}` : '';
}
