/**
 * The shape of a JSON value without its values: what a partner's contract needs to know about a
 * request body it sent (which fields, of which types), and nothing a body could carry in clear.
 * A leaf is its JSON type (`string`, `integer`, `number`, `boolean`, `null`); an array is the
 * shapes of its items, equal ones once; an object maps each key to the shape of its value.
 */
export type JsonShape = string | JsonShape[] | { [key: string]: JsonShape };

/** Nesting deeper than this is cut to `object` or `array`: a body is at most 64 levels deep. */
const DEPTH_LIMIT = 64;

export function jsonShape(value: unknown, depth = 0): JsonShape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    if (depth >= DEPTH_LIMIT) return 'array';
    const shapes = new Map<string, JsonShape>();
    for (const item of value) {
      const shape = jsonShape(item, depth + 1);
      shapes.set(JSON.stringify(shape), shape);
    }
    return [...shapes.values()];
  }
  if (typeof value === 'object') {
    if (depth >= DEPTH_LIMIT) return 'object';
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, jsonShape(v, depth + 1)]),
    );
  }
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
