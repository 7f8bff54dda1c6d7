export interface JsonStructureLimits {
  /** Deepest nesting of objects and arrays accepted. */
  maxDepth: number;
  /** Most object keys accepted, summed over the whole body. */
  maxKeys: number;
}

export type JsonStructureProblem =
  | { kind: 'too_deep'; limit: number; offset: number }
  | { kind: 'too_many_keys'; limit: number; offset: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;

/**
 * One linear pass over the raw bytes, before JSON.parse: JSON.parse and everything after it
 * (schema validation, logging, persistence) recurse once per level, so a body nested 100 000 deep
 * must be refused here, where nothing recurses. Keys are counted as the colons outside strings,
 * which is exact for valid JSON and harmless for invalid JSON (JSON.parse refuses that next).
 */
export function findStructureProblem(
  bytes: Uint8Array,
  limits: JsonStructureLimits,
): JsonStructureProblem | undefined {
  let depth = 0;
  let keys = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    switch (byte) {
      case QUOTE:
        inString = true;
        break;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (++depth > limits.maxDepth) return { kind: 'too_deep', limit: limits.maxDepth, offset: i };
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        depth--;
        break;
      case COLON:
        if (++keys > limits.maxKeys) return { kind: 'too_many_keys', limit: limits.maxKeys, offset: i };
        break;
    }
  }
  return undefined;
}
