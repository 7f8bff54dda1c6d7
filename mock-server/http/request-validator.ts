import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Operation } from 'openapi-backend';
import { requestMediaTypes } from '../../openapi/documents.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;

interface CompiledOperation {
  params: ValidateFunction;
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
 * Validates a request against its operation with validators compiled once per operation at
 * start-up. openapi-backend's `validateRequest` re-parsed headers, cookies and path templates on
 * every request (a quarter of the throughput of a simple GET, measured). Error paths keep its
 * shape (`/path/x`, `/query/x`, `/requestBody/x`), which `validation-errors.ts` turns into
 * FastAPI-style items.
 */
export class RequestValidator {
  private readonly compiled = new Map<string, CompiledOperation>();
  private readonly operations = new Map<string, Operation>();
  private readonly paramsAjv = newAjv({ coerceTypes: 'array' });
  private readonly bodyAjv = newAjv({});

  constructor(operations: Operation[]) {
    for (const operation of operations) this.operations.set(operation.operationId as string, operation);
  }

  validate(operationId: string, request: RequestParts): ErrorObject[] {
    const compiled = this.compiledFor(operationId);
    const errors: ErrorObject[] = [];
    // copies (arrays too): coercion must not change what the handler receives
    const query: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(request.query))
      query[name] = Array.isArray(value) ? [...value] : value;
    if (!compiled.params({ path: { ...request.path }, query }))
      errors.push(...(compiled.params.errors ?? []));
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
  private compiledFor(operationId: string): CompiledOperation {
    let compiled = this.compiled.get(operationId);
    if (compiled) return compiled;
    const operation = this.operations.get(operationId);
    if (!operation) throw new Error(`no validator for operation ${operationId}`);
    compiled = {
      params: this.paramsAjv.compile(paramsSchema(operation)),
      body: bodySchema(operation, this.bodyAjv),
    };
    this.compiled.set(operationId, compiled);
    return compiled;
  }
}

function newAjv(options: { coerceTypes?: 'array' }): Ajv2020 {
  // The document's schemas are checked against the meta-schema by `npm run lint:openapi`; checking
  // them again here compiled the 2020-12 meta-schema in every instance, most of a second of start.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, ...options });
  addFormats(ajv);
  return ajv;
}

function paramsSchema(operation: Operation): Json {
  const groups: Record<'path' | 'query', { properties: Json; required: string[] }> = {
    path: { properties: {}, required: [] },
    query: { properties: {}, required: [] },
  };
  for (const parameter of (operation.parameters ?? []) as unknown as Json[]) {
    const where = parameter.in as string;
    if (where !== 'path' && where !== 'query') continue;
    const name = String(parameter.name);
    groups[where].properties[name] = (parameter.schema as Json | undefined) ?? {};
    if (parameter.required) groups[where].required.push(name);
  }
  return {
    type: 'object',
    properties: {
      path: { type: 'object', ...groups.path },
      query: { type: 'object', ...groups.query },
    },
  };
}

function bodySchema(operation: Operation, ajv: Ajv2020): ValidateFunction | undefined {
  const requestBody = operation.requestBody as Json | undefined;
  const schema = requestMediaTypes(requestBody)['application/json']?.schema as Json | undefined;
  if (!requestBody || !schema) return undefined;
  return ajv.compile({
    type: 'object',
    properties: { requestBody: schema },
    required: requestBody.required === true ? ['requestBody'] : [],
  });
}
