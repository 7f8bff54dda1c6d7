import { servedDocument, type OpenApiDocument } from '../../openapi/documents.js';

export type { OpenApiDocument };
/** The public document, the one partners read and generate clients from. */
export { PUBLIC_DOCUMENT as OPENAPI_PATH } from '../../openapi/documents.js';

/**
 * Every operation the mock serves, as written (with its $refs), parsed once: the public interface
 * (openapi/openapi.yaml) and the control plane with the internal endpoints
 * (openapi/mock-control.yaml), merged into one document.
 */
export function openApiDocument(): OpenApiDocument {
  return servedDocument();
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
