import { resolve } from '../document-walk/document-operations.js';

type Node = Record<string, unknown>;

/** `[]` stands for every element of an array: `upload.urls[].url`. */
export const EACH = '[]';

/** One field of a response body as the document describes it, its branches (allOf, oneOf) merged. */
export interface ResponseField {
  path: string[];
  /** JSON types the document allows (`string`, `integer`, `null`...). */
  types: Set<string>;
  format?: string;
  /** Every value an `enum` or `const` of any branch allows. */
  values?: unknown[];
  /** Some branch lists it in `required` (array items always are). */
  required: boolean;
}

export const fieldName = (path: string[]): string =>
  path.map((segment, i) => (segment === EACH || i === 0 ? segment : `.${segment}`)).join('');

function typesOf(node: Node): string[] {
  if (Array.isArray(node.type)) return node.type as string[];
  if (typeof node.type === 'string') return [node.type];
  if (node.const !== undefined) return [typeof node.const === 'number' ? 'number' : typeof node.const];
  return [];
}

/**
 * Every field of a response schema, nested ones included (through `$ref`, `allOf`, `oneOf`,
 * `anyOf` and array items), in document order: the fields a mutant may drop, change or swap.
 */
export function responseFields(document: Node, schema: unknown): ResponseField[] {
  const found = new Map<string, ResponseField>();
  const visit = (raw: unknown, path: string[], depth: number, required: boolean): void => {
    if (depth > 12 || raw === undefined) return;
    const node = resolve(document, raw);
    for (const key of ['allOf', 'oneOf', 'anyOf'])
      for (const branch of (node[key] as unknown[] | undefined) ?? [])
        visit(branch, path, depth + 1, required);
    if (path.length) {
      const key = fieldName(path);
      const field = found.get(key) ?? { path, types: new Set<string>(), required };
      field.required ||= required;
      found.set(key, field);
      for (const type of typesOf(node)) field.types.add(type);
      if (typeof node.format === 'string') field.format ??= node.format;
      const values = [...((node.enum as unknown[]) ?? []), ...(node.const !== undefined ? [node.const] : [])];
      if (values.length) field.values = [...new Set([...(field.values ?? []), ...values])];
    }
    const listed = new Set((node.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries((node.properties as Node | undefined) ?? {}))
      visit(property, [...path, name], depth + 1, listed.has(name));
    if (node.items) visit(node.items, [...path, EACH], depth + 1, true);
  };
  visit(schema, [], 0, true);
  return [...found.values()];
}
