import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const OPENAPI_PATH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../openapi/openapi.yaml',
);

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

let cached: OpenApiDocument | undefined;

/**
 * The build (bin/build-dist.js) writes the document beside its YAML as JSON too: JSON.parse takes
 * a millisecond where the YAML parser took most of the mock's start-up. Run from the sources there
 * is no JSON copy, and the YAML itself is read.
 */
const BUILT_JSON_PATH = OPENAPI_PATH.replace(/\.yaml$/, '.json');

/** The document as written (with its $refs), parsed once. */
export function openApiDocument(): OpenApiDocument {
  if (!cached && existsSync(BUILT_JSON_PATH))
    cached = JSON.parse(readFileSync(BUILT_JSON_PATH, 'utf8')) as OpenApiDocument;
  if (!cached) {
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    cached = parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenApiDocument;
  }
  return cached;
}

/** A fresh deep copy, for libraries that dereference in place. */
export function openApiDocumentCopy(): OpenApiDocument {
  return structuredClone(openApiDocument());
}

export type ValidationStyle = 'array' | 'string';

/**
 * How an operation words its 422: read from the document, where each operation's 422 response
 * refers to `ValidationErrorString` (string `detail`) or to one of the array forms.
 */
export function validationStyles(doc: OpenApiDocument = openApiDocument()): Map<string, ValidationStyle> {
  const styles = new Map<string, ValidationStyle>();
  for (const pathItem of Object.values(doc.paths)) {
    for (const operation of Object.values(pathItem) as Array<Record<string, unknown>>) {
      if (!operation || typeof operation !== 'object' || !('operationId' in operation)) continue;
      const responses = (operation.responses ?? {}) as Record<string, { $ref?: string }>;
      const ref = responses['422']?.$ref ?? '';
      styles.set(String(operation.operationId), ref.endsWith('/ValidationErrorString') ? 'string' : 'array');
    }
  }
  return styles;
}
