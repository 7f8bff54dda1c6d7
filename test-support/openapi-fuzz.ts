import http from 'node:http';
import fc from 'fast-check';
import type { OperationSpec } from '../contract-tests/harness/openapi-contract.js';
import { documentContract, responseViolations } from './document-responses.js';
import { requestMediaTypes } from '../openapi/documents.js';

type Schema = Record<string, unknown>;

/** One generated request, as plain data, so a failure prints something a person can replay. */
export interface FuzzRequest {
  operationId: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: { kind: 'text'; text: string } | { kind: 'multipart'; field: string; bytes: number[] };
}

export interface FuzzContext {
  /** Values worth trying for a path parameter, by name (ids of records that exist). */
  knownIds: Record<string, string[]>;
  /** API keys of seeded organizations. */
  apiKeys: string[];
}

const MAX_DEPTH = 4;

/**
 * Requests for every operation of the document, drawn from the document itself: path, query and
 * body values valid by its schemas, next to wrong types, missing fields, hostile strings (lone
 * surrogates, controls), numbers past every bound, bodies that are not JSON, wrong content types
 * and credentials of every kind.
 */
export function requestArbitrary(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const operations = [...documentContract().operations.values()];
  return fc.oneof(...operations.map((op) => operationRequest(op, context)));
}

function operationRequest(op: OperationSpec, context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const contract = documentContract();
  const parameters = [
    ...(((contract.doc.paths as Record<string, Schema>)[op.path].parameters as Schema[]) ?? []),
    ...((op.raw.parameters as Schema[]) ?? []),
  ].map((p) => contract.deref(p));
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');

  const path = fc
    .tuple(...pathParams.map((p) => pathValue(String(p.name), schemaOf(p), context)))
    .map((values) =>
      pathParams.reduce(
        (template, p, i) => template.replace(`{${String(p.name)}}`, encodeSegment(values[i])),
        op.path,
      ),
    );
  const query = fc
    .tuple(...queryParams.map((p) => fc.option(queryValue(schemaOf(p)), { nil: undefined })))
    .map((values) => {
      const search = new URLSearchParams();
      queryParams.forEach((p, i) => {
        const value = values[i];
        if (value === undefined) return;
        for (const v of Array.isArray(value) ? value : [value]) search.append(String(p.name), String(v));
      });
      const text = search.toString();
      return text ? `?${text}` : '';
    });

  return fc
    .record({
      path,
      query,
      auth: authHeader(context),
      body: requestBody(op),
    })
    .map(({ path, query, auth, body }) => {
      const bodyless = op.method === 'GET' || op.method === 'HEAD'; // fetch cannot send one
      return {
        operationId: op.operationId,
        method: op.method,
        path: path + query,
        headers: { ...auth, ...(bodyless ? {} : body.headers) },
        ...(body.body && !bodyless ? { body: body.body } : {}),
      };
    });
}

/** Percent-encodes a path segment; a lone surrogate goes out as its WTF-8 bytes (invalid UTF-8 for the server to refuse). */
function encodeSegment(text: string): string {
  return text.replace(/[\s\S]/gu, (char) => {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff)
      return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    return encodeURIComponent(char);
  });
}

function schemaOf(parameter: Schema): Schema {
  return documentContract().deref((parameter.schema as Schema) ?? {});
}

function pathValue(name: string, schema: Schema, context: FuzzContext): fc.Arbitrary<string> {
  const known = context.knownIds[name] ?? [];
  return fc
    .oneof(
      {
        weight: known.length ? 6 : 0,
        arbitrary: known.length ? fc.constantFrom(...known) : fc.constant('x'),
      },
      { weight: 2, arbitrary: fromSchema(schema).map(String) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: hostileString() },
    )
    .filter((s) => s !== '' && s !== '.' && s !== '..');
  // an empty segment, '.' and '..' change the path itself (a URL parser removes dot segments): the
  // request would be for another route, not for this operation
}

function queryValue(schema: Schema): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: fromSchema(schema) }, { weight: 1, arbitrary: hostileString() });
}

function authHeader(context: FuzzContext): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(...context.apiKeys).map((k) => ({ authorization: `Bearer ${k}` })),
    },
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: 'grapheme-ascii', maxLength: 40 })
        .filter((s) => /^[\x20-\x7e]*$/.test(s))
        .map((s) => ({ authorization: s })),
    },
  );
}

type BodyPart = { headers: Record<string, string>; body?: FuzzRequest['body'] };

function requestBody(op: OperationSpec): fc.Arbitrary<BodyPart> {
  const content = requestMediaTypes(documentContract().deref((op.raw.requestBody as Schema) ?? {})) as Record<
    string,
    Schema
  >;
  const json = content['application/json'];
  const choices: Array<fc.WeightedArbitrary<BodyPart>> = [
    { weight: 1, arbitrary: fc.constant({ headers: {} }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', ''), hostileString())
        .map(([type, text]) => ({
          headers: type ? { 'content-type': type } : {},
          body: { kind: 'text' as const, text },
        })),
    },
  ];
  if (json) {
    const schema = documentContract().deref((json.schema as Schema) ?? {});
    choices.push(
      { weight: 6, arbitrary: jsonText(fromSchema(schema)) },
      { weight: 2, arbitrary: jsonText(mutated(fromSchema(schema))) },
      { weight: 1, arbitrary: jsonText(fc.jsonValue({ maxDepth: 3 })) },
      { weight: 1, arbitrary: notJson().map((text) => jsonBody(text)) },
    );
  }
  if (content['multipart/form-data']) {
    choices.push({
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom('file', 'file', 'image'), fc.uint8Array({ maxLength: 512 }))
        .map(([field, bytes]) => ({
          headers: {},
          body: { kind: 'multipart' as const, field, bytes: [...bytes] },
        })),
    });
  }
  return fc.oneof(...choices);
}

function jsonBody(text: string): BodyPart {
  return { headers: { 'content-type': 'application/json' }, body: { kind: 'text', text } };
}

function jsonText(value: fc.Arbitrary<unknown>): fc.Arbitrary<BodyPart> {
  return value.map((v) => jsonBody(JSON.stringify(v) ?? 'null'));
}

/** A valid value with one field replaced by anything, or one required field dropped. */
function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(valid, fc.jsonValue({ maxDepth: 2 }), fc.nat(), fc.boolean())
    .map(([value, replacement, index, drop]) => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return replacement;
      const keys = Object.keys(value);
      if (!keys.length) return { [String(index)]: replacement };
      const key = keys[index % keys.length];
      const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      if (drop) delete copy[key];
      else copy[key] = replacement;
      return copy;
    });
}

function notJson(): fc.Arbitrary<string> {
  return fc.oneof(
    hostileString(),
    fc.integer({ min: 1, max: 5000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
    fc.integer({ min: 1, max: 5000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
    fc.jsonValue().map((v) => (JSON.stringify(v) ?? '').slice(0, -1)),
  );
}

/** Strings that have broken encoders before: lone surrogates, controls, quotes, percent signs. */
function hostileString(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength: 24 }),
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.constantFrom(
      '\uD800',
      '\uDC00x',
      '\u0000',
      '%',
      '%zz',
      '..',
      '../../etc/passwd',
      '"\\',
      '\u202E',
      ' ',
    ),
  );
}

/** A value valid by the schema (as far as these keywords go; the rest is what the mock must refuse). */
export function fromSchema(input: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = documentContract().deref(input);
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(s, depth + 1)));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : schema.type
      ? [String(schema.type)]
      : schema.properties
        ? ['object']
        : ['string', 'integer', 'boolean', 'null'];
  if (types.length > 1) return fc.oneof(...types.map((type) => fromSchema({ ...schema, type }, depth)));
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc
        .bigInt({ min: BigInt(min ?? -1_000_000), max: BigInt(max ?? Number.MAX_SAFE_INTEGER) })
        .map(Number);
    case 'number':
      return fc.double({ min: min ?? -1e12, max: max ?? 1e12, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringFromSchema(schema);
    case 'array':
      if (depth >= MAX_DEPTH) return fc.constant([]);
      return fc.array(fromSchema((schema.items as Schema) ?? {}, depth + 1), {
        minLength: (schema.minItems as number) ?? 0,
        maxLength: Math.max((schema.minItems as number) ?? 0, Math.min((schema.maxItems as number) ?? 3, 3)),
      });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (depth >= MAX_DEPTH) return fc.constant({});
      const model = Object.fromEntries(
        Object.entries(properties).map(([name, s]) => [name, fromSchema(s, depth + 1)]),
      );
      return fc.record(model, {
        requiredKeys: ((schema.required as string[]) ?? []).filter((k) => k in model),
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringFromSchema(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc
        .date({ min: new Date(0), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = (schema.minLength as number) ?? 0;
  const maxLength = Math.max(minLength, Math.min((schema.maxLength as number) ?? 24, 64));
  return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ unit: 'binary', minLength, maxLength }));
}

export interface FuzzOutcome {
  status: number;
  problems: string[];
}

/** Sends one request; the problems are a 5xx, no answer within `timeoutMs`, or a response the document does not allow. */
export async function sendAndJudge(
  baseUrl: string,
  request: FuzzRequest,
  timeoutMs: number,
): Promise<FuzzOutcome> {
  const requestBody = (): string | FormData | undefined => {
    if (request.body?.kind === 'text') return request.body.text;
    if (request.body?.kind !== 'multipart') return undefined;
    const form = new FormData();
    form.append(request.body.field, new Blob([new Uint8Array(request.body.bytes)]), 'fuzz.tif');
    return form;
  };
  let answer: Answer;
  try {
    const response = await fetch(baseUrl + request.path, {
      method: request.method,
      headers: request.headers,
      body: requestBody(),
      signal: AbortSignal.timeout(timeoutMs),
    });
    answer = {
      status: response.status,
      type: response.headers.get('content-type'),
      bytes: Buffer.from(await response.arrayBuffer()),
    };
  } catch (first) {
    // A kept-alive connection the server closed just as this request went out fails with no fault
    // of either side. fetch's pool may hold several such connections after a stall of the test's
    // own process, so the second try goes out on a connection of its own: it tells that race
    // from a real drop.
    try {
      answer = await sendOnNewConnection(baseUrl + request.path, request, requestBody(), timeoutMs);
    } catch (err) {
      const cause = (err as Error & { cause?: Error & { code?: string } }).cause ?? err;
      return {
        status: 0,
        problems: [
          `no answer: ${(err as Error).message} (${(cause as { code?: string }).code ?? (cause as Error).message}); first try: ${String((first as Error & { cause?: Error }).cause ?? first)}`,
        ],
      };
    }
  }
  const { status, type, bytes } = answer;
  const problems: string[] = [];
  if (status >= 500) problems.push(`answered ${status}: ${bytes.toString('utf8').slice(0, 300)}`);
  const text =
    (type ?? '').includes('json') || (type ?? '').startsWith('text/') ? bytes.toString('utf8') : '';
  problems.push(...responseViolations(request.operationId, status, type, text));
  return { status, problems };
}

interface Answer {
  status: number;
  type: string | null;
  bytes: Buffer;
}

/** The request over a new connection (no keep-alive pool), the body encoded as fetch would. */
async function sendOnNewConnection(
  url: string,
  request: FuzzRequest,
  body: string | FormData | undefined,
  timeoutMs: number,
): Promise<Answer> {
  const encoded = body === undefined ? undefined : new Response(body);
  const bytes = encoded ? Buffer.from(await encoded.arrayBuffer()) : undefined;
  const headers: Record<string, string> = { ...request.headers };
  const typeGiven = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  const encodedType = encoded?.headers.get('content-type');
  if (!typeGiven && encodedType) headers['content-type'] = encodedType;
  if (bytes) headers['content-length'] = String(bytes.length);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: request.method, headers, agent: false, timeout: timeoutMs });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'] ?? null,
          bytes: Buffer.concat(chunks),
        }),
      );
    });
    req.end(bytes);
  });
}

/** A curl command that sends the same request again. */
export function curlOf(baseUrl: string, request: FuzzRequest): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const parts = ['curl', '-sS', '-X', request.method];
  for (const [name, value] of Object.entries(request.headers)) parts.push('-H', quote(`${name}: ${value}`));
  if (request.body?.kind === 'text') parts.push('--data-binary', quote(request.body.text));
  if (request.body?.kind === 'multipart')
    parts.push('-F', quote(`${request.body.field}=@<${request.body.bytes.length} bytes>`));
  parts.push(quote(baseUrl + request.path));
  return parts.join(' ');
}
