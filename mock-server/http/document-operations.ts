import type { DocumentOperation } from './document-operation.js';
import { servedDocument, type OpenApiDocument } from '../../openapi/documents.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, unknown>;

/**
 * The document's operations with every local `$ref` replaced by the object it names, each with its
 * path, method, path-level parameters, effective security and 422 form: what openapi-backend's
 * init() and getOperations() produced. Done here because loading openapi-backend
 * (json-schema-ref-parser, lodash, its own Ajv) was a quarter of the mock's start-up and about
 * 20 MB of its idle memory, while the document only ever refers inside itself.
 */
export function documentOperations(): DocumentOperation[] {
  const written = servedDocument();
  const definition = dereference(structuredClone(written)) as OpenApiDocument;
  const globalSecurity = (definition.security as unknown[] | undefined) ?? [];
  const operations: DocumentOperation[] = [];
  for (const [path, pathItem] of Object.entries(definition.paths ?? {})) {
    const item = pathItem as Json;
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      // The 422's `$ref`, gone once dereferenced, names the form of its validation errors.
      const responses = (written.paths[path][method] as Json).responses as Json | undefined;
      const ref = (responses?.['422'] as { $ref?: string } | undefined)?.$ref ?? '';
      operations.push({
        ...operation,
        path,
        method,
        parameters: [
          ...((operation.parameters as unknown[]) ?? []),
          ...((item.parameters as unknown[]) ?? []),
        ],
        security: (operation.security as unknown[] | undefined) ?? globalSecurity,
        validationStyle: ref.endsWith('/ValidationErrorString') ? 'string' : 'array',
      } as unknown as DocumentOperation);
    }
  }
  return operations;
}

/**
 * Replaces, in place, every `{ $ref: '#/...' }` by its target (the same object wherever it is
 * referred to, so a recursive schema becomes a cycle rather than an endless copy); sibling keys
 * of a `$ref`, which OpenAPI 3.1 allows, are laid over a copy of the target.
 */
function dereference(root: Json): Json {
  const seen = new Set<object>();
  const visit = (value: unknown): unknown => {
    if (!value || typeof value !== 'object') return value;
    const ref = (value as Json).$ref;
    if (typeof ref === 'string') {
      const target = visit(pointer(root, ref));
      const { $ref: _ref, ...siblings } = value as Json;
      return Object.keys(siblings).length ? { ...(target as Json), ...siblings } : target;
    }
    if (seen.has(value)) return value;
    seen.add(value);
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = visit(value[i]);
    else for (const key of Object.keys(value)) (value as Json)[key] = visit((value as Json)[key]);
    return value;
  };
  return visit(root) as Json;
}

function pointer(root: Json, ref: string): unknown {
  if (!ref.startsWith('#/'))
    throw new Error(`the document refers outside itself ($ref ${ref}), which is not supported`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Json | undefined)?.[key];
    if (node === undefined) throw new Error(`the document's $ref ${ref} names nothing`);
  }
  return node;
}
