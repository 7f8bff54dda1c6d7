import type { OpenApiContract } from '../harness/openapi-contract.js';
import { formatPath, valuesAt, type PathStep } from './json-path.js';
import type { PactRule } from './pact-file.js';

type Json = Record<string, unknown>;

/**
 * Which fields of an answer a partner's client relies on cannot be seen from the mock: this infers
 * them from the document. Every leaf of the recorded answer (string, number, boolean) that the
 * response's schema defines is relied on, matched by type; a field the schema leaves free-form
 * (an image's `metadata`) is not looked into, and a leaf recorded as null is left out (a null
 * says nothing of the type a later answer holds there). A field the document declares nullable is
 * relied on as it declares it: its recorded type or null, since a value seen at recording (a
 * share's `last_viewed_at` after a page view) says nothing of whether the next answer has one; a
 * nullable object or array gets that rule too, so the leaves under it are not missed when it is
 * null. The partner narrows the list afterwards (`--fields`, or by deleting rules from the file).
 */
export function reliedFields(
  contract: OpenApiContract,
  operationId: string,
  status: number,
  body: unknown,
): Record<string, PactRule> {
  const schema = responseSchema(contract, operationId, status);
  const rules: Record<string, PactRule> = {};
  if (!schema) return rules;
  const walk = (value: unknown, schemas: Json[], steps: PathStep[]): void => {
    if (value === null || value === undefined) return;
    const nullable = branches(contract, schemas).some(allowsNull);
    const container = typeof value === 'object';
    if (!container || nullable) rules[formatPath(steps)] = nullable ? TYPE_OR_NULL : TYPE;
    if (Array.isArray(value)) {
      const items = branches(contract, schemas).flatMap((s) =>
        s.items ? [contract.deref(s.items as Json)] : [],
      );
      if (items.length) for (const item of value) walk(item, items, [...steps, '*']);
      return;
    }
    if (typeof value === 'object') {
      const properties = new Map<string, Json[]>();
      for (const s of branches(contract, schemas))
        for (const [name, property] of Object.entries((s.properties as Record<string, Json>) ?? {}))
          properties.set(name, [...(properties.get(name) ?? []), contract.deref(property)]);
      for (const [key, child] of Object.entries(value as Json)) {
        const defined = properties.get(key);
        if (defined) walk(child, defined, [...steps, key]);
      }
    }
  };
  walk(body, [schema], []);
  return rules;
}

const TYPE: PactRule = { combine: 'AND', matchers: [{ match: 'type' }] };
const TYPE_OR_NULL: PactRule = { combine: 'OR', matchers: [{ match: 'type' }, { match: 'null' }] };

/** Whether one schema (a branch, not its sub-branches) lets the value be null. */
function allowsNull(schema: Json): boolean {
  const type = schema.type;
  return (
    type === 'null' ||
    (Array.isArray(type) && type.includes('null')) ||
    schema.nullable === true ||
    ('const' in schema && schema.const === null) ||
    (Array.isArray(schema.enum) && schema.enum.includes(null))
  );
}

/** The recorded answer with only the relied-on fields: the example Pact's matchers are read against. */
export function pruneToRules(body: unknown, rules: Record<string, PactRule>): unknown {
  const keep = new Set<string>();
  for (const path of Object.keys(rules)) for (const { at } of valuesAt(body, path)) keep.add(at);
  const prune = (value: unknown, at: string): unknown => {
    if (keep.has(at)) return value;
    if (Array.isArray(value)) {
      const items = value.map((item, i) => prune(item, `${at}[${i}]`));
      return items.some((item) => item !== undefined) ? items.map((item) => item ?? null) : undefined;
    }
    if (value && typeof value === 'object') {
      const entries = Object.entries(value as Json)
        .map(([k, v]) => [k, prune(v, at + formatPath([k]).slice(1))] as const)
        .filter(([, v]) => v !== undefined);
      return entries.length ? Object.fromEntries(entries) : undefined;
    }
    return undefined;
  };
  return prune(body, '$') ?? {};
}

/** The JSON schema of an operation's answer at a status, when the document gives one. */
function responseSchema(contract: OpenApiContract, operationId: string, status: number): Json | undefined {
  const op = contract.operations.get(operationId);
  const responses = op?.raw.responses as Record<string, Json> | undefined;
  const response = responses?.[String(status)];
  if (!response) return undefined;
  const content = contract.deref(response).content as Record<string, Json> | undefined;
  const json = Object.entries(content ?? {}).find(([media]) => media.includes('json'))?.[1];
  return json?.schema ? contract.deref(json.schema as Json) : undefined;
}

/** The schemas with every allOf, oneOf and anyOf branch of them, dereferenced. */
function branches(contract: OpenApiContract, schemas: Json[]): Json[] {
  const out: Json[] = [];
  const visit = (schema: Json): void => {
    const s = contract.deref(schema);
    out.push(s);
    for (const key of ['allOf', 'oneOf', 'anyOf'])
      for (const branch of (s[key] as Json[] | undefined) ?? []) visit(branch);
  };
  schemas.forEach(visit);
  return out;
}
