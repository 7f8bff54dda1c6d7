import type { OpenApiContract } from '../../harness/openapi-contract.js';

/**
 * The bounds the document gives the inputs the exploration sends, read from it at run time: a
 * changed document changes what is sent. A bound the document does not give falls back to the
 * value the interface states (4 GB, names of a file system's 255 characters), so the exploration
 * still sends its classes.
 */
export interface DocumentBounds {
  name: { min: number; max: number };
  size: { min: number; max: number };
  /** The most parts a plan has, and a parts list may name. */
  parts: number;
  overlay: {
    maxSize: { min: number; max: number };
    fillOpacity: { min: number; max: number };
    outlineColor: { pattern: RegExp; fallback: string };
  };
  columns: string[];
  /** Every JSON body's limits (x-json-body-limits): bytes, levels of nesting, object keys. */
  body: { bytes: number; depth: number; keys: number };
}

type Json = Record<string, unknown>;

const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (node, step) => (node && typeof node === 'object' ? (node as Json)[step] : undefined),
    value,
  );

const numberOr = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;

/** A query parameter's schema, as the operation declares it. */
function parameterSchema(contract: OpenApiContract, operationId: string, name: string): Json {
  const parameters = (contract.operation(operationId).raw.parameters as Json[] | undefined) ?? [];
  const found = parameters.map((p) => contract.deref(p)).find((p) => p.name === name);
  return (found?.schema as Json | undefined) ?? {};
}

/** Minimum and maximum of a schema, each with its fallback. */
const range = (schema: unknown, min: number, max: number) => ({
  min: numberOr(at(schema, 'minimum'), min),
  max: numberOr(at(schema, 'maximum'), max),
});

export function documentBounds(contract: OpenApiContract): DocumentBounds {
  const created = contract.deref({ $ref: '#/components/schemas/CreateImageRequest' });
  const name = at(created, 'properties', 'name');
  const columns = parameterSchema(contract, 'exportMeasurementsCsv', 'columns');
  const outline = parameterSchema(contract, 'exportOverlayPng', 'outline_color');
  const listed = at(contract.deref({ $ref: '#/components/schemas/CompleteUploadRequest' }), 'properties');
  const limits = contract.doc['x-json-body-limits'];
  return {
    name: { min: numberOr(at(name, 'minLength'), 1), max: numberOr(at(name, 'maxLength'), 255) },
    size: range(at(created, 'properties', 'size'), 1, 4 * 1024 ** 3),
    parts: numberOr(at(listed, 'parts', 'maxItems'), 512),
    overlay: {
      maxSize: range(parameterSchema(contract, 'exportOverlayPng', 'max_size'), 16, 65536),
      fillOpacity: range(parameterSchema(contract, 'exportOverlayPng', 'fill_opacity'), 0, 1),
      outlineColor: {
        pattern: new RegExp(typeof outline.pattern === 'string' ? outline.pattern : '^[0-9A-Fa-f]{6}$'),
        fallback: typeof outline.default === 'string' ? outline.default : 'FFFF00',
      },
    },
    columns: ((at(columns, 'items', 'enum') as string[] | undefined) ?? []).map(String),
    body: {
      bytes: numberOr(at(limits, 'max_bytes'), 1_048_576),
      depth: numberOr(at(limits, 'max_depth'), 64),
      keys: numberOr(at(limits, 'max_keys'), 10_000),
    },
  };
}

/** A bound's class of values: at it, one inside it, one past it (integers). */
const around = (bound: number, inward: 1 | -1): number[] => [bound, bound + inward, bound - inward];

/** Both ends of a range, each at, inside and past it. */
export const edges = ({ min, max }: { min: number; max: number }): number[] => [
  ...around(min, 1),
  ...around(max, -1),
];
