import type { DocumentOperation } from './document-operation.js';
import { isJsonObject } from './json-body.js';
import type { OperationContext, OperationHandler } from './operation-context.js';

const UUID = /^(?:urn:uuid:)?([0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12})$/i;

/**
 * A UUID's hex digits are case-insensitive (RFC 9562) and `format: uuid` accepts an `urn:uuid:`
 * prefix, so `3F1C...` and `urn:uuid:3f1c...` name the same record as `3f1c...`. Records are keyed
 * by the lower-case form, which is also the form every response carries.
 */
export function canonicalUuid(value: string): string {
  const found = UUID.exec(value);
  return found ? found[1].toLowerCase() : value;
}

/**
 * Wraps every handler so that the ids it receives (path and query parameters, top-level body
 * properties) are canonical wherever the document declares them `format: uuid`; the document, not
 * the look of a value, decides, so an image named like a UUID keeps its name.
 */
export function withCanonicalIds(
  operations: DocumentOperation[],
  handlers: Record<string, OperationHandler>,
): Record<string, OperationHandler> {
  const wrapped: Record<string, OperationHandler> = { ...handlers };
  for (const operation of operations) {
    const id = operation.operationId;
    const handler = handlers[id];
    const fields = uuidFields(operation);
    if (!handler || (!fields.path.length && !fields.query.length && !fields.body.length)) continue;
    wrapped[id] = (ctx: OperationContext) =>
      handler({
        ...ctx,
        params: canonicalized(ctx.params, fields.path),
        query: canonicalized(ctx.query, fields.query),
        body: isJsonObject(ctx.body) ? canonicalized(ctx.body, fields.body) : ctx.body,
      });
  }
  return wrapped;
}

function uuidFields(operation: DocumentOperation) {
  const named = (where: string) =>
    operation.parameters.filter((p) => p.in === where && isUuidSchema(p.schema)).map((p) => p.name);
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return {
    path: named('path'),
    query: named('query'),
    body: Object.entries(properties ?? {})
      .filter(([, schema]) => isUuidSchema(schema))
      .map(([name]) => name),
  };
}

function isUuidSchema(schema: unknown): boolean {
  return (schema as { format?: unknown } | undefined)?.format === 'uuid';
}

function canonicalized<T extends Record<string, unknown>>(values: T, names: string[]): T {
  if (!names.some((name) => typeof values[name] === 'string')) return values;
  const copy: Record<string, unknown> = { ...values };
  for (const name of names) if (typeof copy[name] === 'string') copy[name] = canonicalUuid(copy[name]);
  return copy as T;
}
