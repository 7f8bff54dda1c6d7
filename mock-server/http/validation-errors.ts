import type { ErrorObject } from 'ajv';
import { isJsonObject } from './json-body.js';
import { validationItem, type ValidationItem } from './render/validation-item.js';
import type { RequestParts } from './request-validator.js';

/**
 * Turns the validator's findings into the items FastAPI (pydantic 2) would report, so the mock's
 * 422 bodies read like production's: `loc`, `msg`, `type`, `input`, `ctx`.
 */
export function toValidationItems(
  errors: ErrorObject[],
  request: Omit<RequestParts, 'checkBody'>,
): ValidationItem[] {
  return errors.map((e) => toItem(e, request));
}

function toItem(error: ErrorObject, request: Omit<RequestParts, 'checkBody'>): ValidationItem {
  const segments = error.instancePath.split('/').filter(Boolean).map(decodePointer);
  const [where = 'requestBody', ...rest] = segments;
  const loc = [where === 'requestBody' ? 'body' : where, ...rest];
  const root =
    where === 'requestBody' ? request.body : (request as unknown as Record<string, unknown>)[where];
  const input = rest.reduce<unknown>(memberOf, root);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return validationItem([...loc, String(p.missingProperty)], 'Field required', 'missing', input ?? null);
    case 'additionalProperties':
      return validationItem(
        [...loc, String(p.additionalProperty)],
        'Extra inputs are not permitted',
        'extra_forbidden',
        isJsonObject(input) ? input[String(p.additionalProperty)] : null,
      );
    case 'format':
      if (p.format === 'uuid') {
        return validationItem(loc, 'Input should be a valid UUID', 'uuid_parsing', input, {
          error: `'${String(input)}' is not a UUID`,
        });
      }
      return validationItem(
        loc,
        `Input should be a valid ${String(p.format)}`,
        `${String(p.format)}_parsing`,
        input,
      );
    case 'type': {
      const [word, key] = TYPE_NAMES[String(p.type)] ?? [String(p.type), String(p.type)];
      return validationItem(loc, `Input should be a valid ${word}`, `${key}_type`, input);
    }
    case 'enum':
    case 'const': {
      const allowed = (p.allowedValues as unknown[] | undefined) ?? [p.allowedValue];
      const expected = allowed.map((v) => `'${String(v)}'`).join(' or ');
      return validationItem(loc, `Input should be ${expected}`, 'enum', input, { expected });
    }
    case 'int_parsing':
    case 'int_parsing_size':
    case 'float_parsing':
      // a path or query string pydantic cannot read as the number asked for (lax-numbers.ts)
      return validationItem(loc, error.message ?? error.keyword, error.keyword, input);
    default: {
      const bound = BOUND_ITEMS[error.keyword]?.(p.limit, p);
      if (bound) return validationItem(loc, bound[0], bound[1], input, bound[2]);
      return validationItem(loc, error.message ?? 'Invalid input', error.keyword, input);
    }
  }
}

/** A value past one of its schema's bounds (a number's range, a length, a pattern), in pydantic's words. */
type Bound = [msg: string, type: string, ctx: Record<string, unknown>];
const BOUND_ITEMS: Record<string, (limit: unknown, p: Record<string, unknown>) => Bound> = {
  minimum: (ge) => [`Input should be greater than or equal to ${ge}`, 'greater_than_equal', { ge }],
  maximum: (le) => [`Input should be less than or equal to ${le}`, 'less_than_equal', { le }],
  exclusiveMinimum: (gt) => [`Input should be greater than ${gt}`, 'greater_than', { gt }],
  exclusiveMaximum: (lt) => [`Input should be less than ${lt}`, 'less_than', { lt }],
  minLength: (min) => [
    `String should have at least ${min} character${min === 1 ? '' : 's'}`,
    'string_too_short',
    { min_length: min },
  ],
  maxLength: (max) => [
    `String should have at most ${max} characters`,
    'string_too_long',
    { max_length: max },
  ],
  minItems: (min) => [`List should have at least ${min} items`, 'too_short', { min_length: min }],
  maxItems: (max) => [`List should have at most ${max} items`, 'too_long', { max_length: max }],
  pattern: (_, { pattern }) => [
    `String should match pattern '${pattern}'`,
    'string_pattern_mismatch',
    { pattern },
  ],
};

/** The string form used where the interface gives 422 a string `detail` (predict, prediction status, shares). */
export function toValidationSentence(items: ValidationItem[]): string {
  return items
    .map((item) => {
      // The body as a whole did not parse: the parser's own words say what and where.
      if (item.type === 'json_invalid') {
        const error = item.ctx.error;
        return item.msg === 'JSON decode error' && typeof error === 'string'
          ? `JSON decode error: ${error}`
          : item.msg;
      }
      const field = item.loc.slice(1).join('.') || item.loc.join('.');
      if (item.type === 'uuid_parsing') return `${field}: '${String(item.input)}' is not a valid UUID`;
      return `${field}: ${item.msg}`;
    })
    .join('; ');
}

/** A JSON Schema type as pydantic's message names it, and as its error type starts. */
const TYPE_NAMES: Record<string, [word: string, key: string]> = {
  integer: ['integer', 'int'],
  number: ['number', 'float'],
  string: ['string', 'string'],
  boolean: ['boolean', 'bool'],
  object: ['dictionary', 'dict'],
  array: ['list', 'list'],
};

/** The member `key` names in a JSON value: an object's property or a list's item (`parts/0`). */
function memberOf(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return /^(?:0|[1-9]\d*)$/.test(key) ? value[Number(key)] : undefined;
  return isJsonObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
