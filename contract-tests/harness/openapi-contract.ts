import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { PUBLIC_DOCUMENT, readDocument, requestMediaTypes, servedDocument } from '../../openapi/documents.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOC_ID = 'https://contract.local/openapi.json';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The public interface; the control plane and internal endpoints are in openapi/mock-control.yaml. */
export const OPENAPI_FILE = PUBLIC_DOCUMENT;

type Json = Record<string, unknown>;

export interface OperationSpec {
  operationId: string;
  method: string;
  /** Path template, e.g. /api/v1/upload/{image_id}. */
  path: string;
  tags: string[];
  /** `public` for openapi.yaml (what a client of the service may call), `control` for mock-control.yaml. */
  document: 'public' | 'control';
  secured: boolean;
  pathParams: string[];
  /** Documented response codes. */
  statuses: string[];
  requestContentTypes: string[];
  /** How the 422 body is documented: 'array', 'string' or 'either'. */
  validationStyle: 'array' | 'string' | 'either' | 'none';
  raw: Json;
}

export interface ResponseViolation {
  message: string;
  /** The one clause the violation belongs to, where only its check may report it (api-client.ts). */
  clause?: string;
}

/**
 * The clause of each header the document declares as its own choice (`x-assumed`): a break of
 * such a header's schema is that clause's alone, never every check's. An export's ETag is
 * strong by the document only (a gzip proxy weakens it, and production may send none): EXP-11.
 */
const ASSUMED_HEADER_CLAUSES: Record<string, string> = { etag: 'EXP-11' };

/**
 * The documents as the contract suite reads them: operations by id, and a validator of each
 * response (status documented, media type documented, body valid against the schema). Public
 * operations are judged by openapi.yaml; the control plane and the internal endpoints, which the
 * suite calls on a local mock, by mock-control.yaml (merged in, its references into openapi.yaml
 * made local, so a shared schema is the same schema). Built from openapi/ alone; nothing here
 * knows how the target is implemented.
 */
export class OpenApiContract {
  readonly doc: Json;
  readonly operations = new Map<string, OperationSpec>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  /** Both documents by default; a single file (e.g. OPENAPI_FILE) for that document alone. */
  constructor(file?: string) {
    this.doc = file ? readDocument(file) : servedDocument();
    const publicPaths = new Set(Object.keys(readDocument(PUBLIC_DOCUMENT).paths));
    // The document's schemas are checked against the meta-schema by `npm run lint:openapi`;
    // checking them again here compiled the 2020-12 meta-schema in every worker of a run, about a
    // fifth of a second each (and an OpenAPI document is not itself a JSON Schema).
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...this.doc, $id: DOC_ID });
    const paths = this.doc.paths as Record<string, Record<string, Json>>;
    for (const [p, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op || typeof op !== 'object' || !('operationId' in op)) continue;
        const responses = op.responses as Record<string, Json>;
        const r422 = responses['422'];
        const ref = String((r422 as Json | undefined)?.$ref ?? '');
        const parameters = [
          ...((item.parameters as unknown as Json[]) ?? []),
          ...((op.parameters as Json[]) ?? []),
        ].map((x) => this.deref(x));
        this.operations.set(String(op.operationId), {
          operationId: String(op.operationId),
          method: method.toUpperCase(),
          path: p,
          tags: (op.tags as string[]) ?? [],
          document: publicPaths.has(p) ? 'public' : 'control',
          secured: !(Array.isArray(op.security) && op.security.length === 0),
          pathParams: parameters.filter((x) => x.in === 'path').map((x) => String(x.name)),
          statuses: Object.keys(responses),
          requestContentTypes: Object.keys(requestMediaTypes(op.requestBody)),
          validationStyle: !r422
            ? 'none'
            : ref.endsWith('ValidationErrorString')
              ? 'string'
              : ref.endsWith('ValidationErrorArray')
                ? 'array'
                : 'either',
          raw: op,
        });
      }
    }
  }

  /**
   * The operation a request reaches, by method and path, or a label for a request outside the
   * document: `presigned part PUT`, `share page GET`, or the method and path with ids elided.
   */
  labelOf(method: string, pathname: string): string {
    const upper = method.toUpperCase();
    for (const op of this.operations.values()) {
      if (op.method !== upper) continue;
      const pattern = new RegExp(
        `^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
      );
      if (pattern.test(pathname)) return op.operationId;
    }
    if (/\/share\/[^/]+$/.test(pathname)) return `share page ${upper}`;
    if (upper === 'PUT' && !pathname.startsWith('/api/')) return 'presigned part PUT';
    return `${upper} ${pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}|(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{24,}/g, '{id}')}`;
  }

  operation(operationId: string): OperationSpec {
    const op = this.operations.get(operationId);
    if (!op) throw new Error(`operation ${operationId} is not in the document`);
    return op;
  }

  /** Every way the response breaks the document; empty when it conforms. */
  validateResponse(
    operationId: string,
    status: number,
    contentType: string | null,
    body: unknown,
    headers?: Headers,
  ): ResponseViolation[] {
    const op = this.operation(operationId);
    const key = op.statuses.includes(String(status))
      ? String(status)
      : op.statuses.includes(`${String(status)[0]}XX`)
        ? `${String(status)[0]}XX`
        : undefined;
    if (!key)
      return [
        {
          message: `${operationId}: status ${status} is not documented (documented: ${op.statuses.join(', ')})`,
        },
      ];
    const response = this.deref((op.raw.responses as Json)[key] as Json);
    const missing = headers ? headerViolations(`${operationId} ${status}`, response, headers, this) : [];
    const content = response.content as Record<string, Json> | undefined;
    if (!content) return missing;
    const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
    if (!(media in content)) {
      return [
        ...missing,
        {
          message: `${operationId} ${status}: media type '${media || 'none'}' is not documented (documented: ${Object.keys(content).join(', ')})`,
        },
      ];
    }
    if (!media.includes('json')) return missing;
    const validate = this.validatorFor(operationId, key, media, content[media].schema as Json | undefined);
    if (!validate || validate(body)) return missing;
    return [
      ...missing,
      ...(validate.errors ?? []).map((e) => ({
        message: `${operationId} ${status} body${e.instancePath || ''}: ${e.message} ${JSON.stringify(e.params)}`,
      })),
    ];
  }

  private validatorFor(
    operationId: string,
    status: string,
    media: string,
    schema: Json | undefined,
  ): ValidateFunction | undefined {
    if (!schema) return undefined;
    const cacheKey = `${operationId} ${status} ${media}`;
    let validate = this.validators.get(cacheKey);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}#${this.schemaPointer(operationId, status, media)}` });
      this.validators.set(cacheKey, validate);
    }
    return validate;
  }

  /** JSON pointer of a response's schema in the document, through a $ref'd response if there is one. */
  private schemaPointer(operationId: string, status: string, media: string): string {
    const op = this.operation(operationId);
    const response = (op.raw.responses as Json)[status] as Json;
    const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    const base =
      typeof response.$ref === 'string'
        ? response.$ref.slice(1)
        : `/paths/${escape(op.path)}/${op.method.toLowerCase()}/responses/${status}`;
    return `${base}/content/${escape(media)}/schema`;
  }

  deref(value: Json): Json {
    let current = value;
    while (typeof current.$ref === 'string') {
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (node, key) => (node as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')],
          this.doc,
        ) as Json;
    }
    return current;
  }
}

let shared: OpenApiContract | undefined;

/**
 * Both documents' contract, built once per process: parsing the YAML and compiling the validators
 * is most of what a test worker does besides the checks themselves.
 */
export function sharedContract(): OpenApiContract {
  shared ??= new OpenApiContract();
  return shared;
}

/**
 * The headers a response of the document declares: a required one present, and any one present
 * as its schema says: an integer where it says integer (with its minimum), as Retry-After on a
 * 429; matching its `pattern` where it has one, as an export's Content-Disposition, an attachment
 * (RFC 6266: the type in any case, parameters optional). A header the document declares as its
 * own choice is filed under its clause (ASSUMED_HEADER_CLAUSES): an export's ETag strong
 * (`"…"`, never `W/"…"`) under EXP-11.
 */
function headerViolations(
  where: string,
  response: Json,
  headers: Headers,
  contract: { deref(x: Json): Json },
): ResponseViolation[] {
  const violations: ResponseViolation[] = [];
  for (const [name, declared] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const header = contract.deref(declared);
    const value = headers.get(name);
    if (value === null) {
      if (header.required === true)
        violations.push({ message: `${where}: required header ${name} is missing` });
      continue;
    }
    const clause = header['x-assumed'] === true ? ASSUMED_HEADER_CLAUSES[name.toLowerCase()] : undefined;
    if (header['x-assumed'] === true && clause === undefined)
      throw new Error(`header ${name} is the document's choice (x-assumed) and names no clause to judge it`);
    const filed = (message: string) => violations.push({ message, ...(clause ? { clause } : {}) });
    const schema = (header.schema ?? {}) as Json;
    if (schema.type === 'integer') {
      const minimum = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
      if (!/^-?\d+$/.test(value.trim()) || Number(value) < minimum)
        filed(
          `${where}: header ${name} is ${JSON.stringify(value)}, not an integer${minimum > -Infinity ? ` of at least ${minimum}` : ''}`,
        );
    }
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      filed(
        `${where}: header ${name} is ${JSON.stringify(value)}, which does not match the document's pattern ${schema.pattern}${clause ? ` (${clause})` : ''}`,
      );
  }
  return violations;
}
