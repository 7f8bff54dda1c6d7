import type { ErrorObject } from 'ajv';
import { validationItem, type ValidationItem } from './render/validation-item.js';

export interface RequestParts {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

const LOCATION: Record<string, string> = {
  path: 'path',
  query: 'query',
  header: 'header',
  requestBody: 'body',
};

/**
 * Turns the validator's findings into the items FastAPI (pydantic 2) would report, so the mock's
 * 422 bodies read like production's: `loc`, `msg`, `type`, `input`, `ctx`.
 */
export function toValidationItems(errors: ErrorObject[], request: RequestParts): ValidationItem[] {
  return errors.map((e) => toItem(e, request));
}

function toItem(error: ErrorObject, request: RequestParts): ValidationItem {
  const segments = error.instancePath.split('/').filter(Boolean).map(decodePointer);
  const [where = 'requestBody', ...rest] = segments;
  const loc = [LOCATION[where] ?? where, ...rest];
  const root =
    where === 'requestBody' ? request.body : (request as unknown as Record<string, unknown>)[where];
  const input = rest.reduce<unknown>((value, key) => (isRecord(value) ? value[key] : undefined), root);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return validationItem([...loc, String(p.missingProperty)], 'Field required', 'missing', input ?? null);
    case 'additionalProperties':
      return validationItem(
        [...loc, String(p.additionalProperty)],
        'Extra inputs are not permitted',
        'extra_forbidden',
        isRecord(input) ? input[String(p.additionalProperty)] : null,
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
    case 'type':
      return validationItem(
        loc,
        `Input should be a valid ${typeWord(String(p.type))}`,
        `${typeKey(String(p.type))}_type`,
        input,
      );
    case 'enum':
    case 'const': {
      const allowed = (p.allowedValues as unknown[] | undefined) ?? [p.allowedValue];
      const expected = allowed.map((v) => `'${String(v)}'`).join(' or ');
      return validationItem(loc, `Input should be ${expected}`, 'enum', input, { expected });
    }
    case 'parse':
      return validationItem(
        ['body', '0'],
        'JSON decode error',
        'json_invalid',
        {},
        { error: error.message ?? '' },
      );
    default:
      return (
        boundItem(error.keyword, loc, p, input) ??
        validationItem(loc, error.message ?? 'Invalid input', error.keyword, input)
      );
  }
}

/** A value past one of its schema's bounds (a number's range, a length, a pattern), in pydantic's words. */
function boundItem(
  keyword: string,
  loc: string[],
  p: Record<string, unknown>,
  input: unknown,
): ValidationItem | undefined {
  switch (keyword) {
    case 'minimum':
      return validationItem(
        loc,
        `Input should be greater than or equal to ${p.limit}`,
        'greater_than_equal',
        input,
        { ge: p.limit },
      );
    case 'maximum':
      return validationItem(
        loc,
        `Input should be less than or equal to ${p.limit}`,
        'less_than_equal',
        input,
        { le: p.limit },
      );
    case 'minLength':
      return validationItem(
        loc,
        `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        'string_too_short',
        input,
        { min_length: p.limit },
      );
    case 'maxLength':
      return validationItem(
        loc,
        `String should have at most ${p.limit} characters`,
        'string_too_long',
        input,
        { max_length: p.limit },
      );
    case 'minItems':
      return validationItem(loc, `List should have at least ${p.limit} items`, 'too_short', input, {
        min_length: p.limit,
      });
    case 'maxItems':
      return validationItem(loc, `List should have at most ${p.limit} items`, 'too_long', input, {
        max_length: p.limit,
      });
    case 'pattern':
      return validationItem(
        loc,
        `String should match pattern '${p.pattern}'`,
        'string_pattern_mismatch',
        input,
        { pattern: p.pattern },
      );
  }
  return undefined;
}

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

function typeWord(type: string): string {
  return (
    {
      integer: 'integer',
      number: 'number',
      string: 'string',
      boolean: 'boolean',
      object: 'dictionary',
      array: 'list',
    }[type] ?? type
  );
}

function typeKey(type: string): string {
  return (
    { integer: 'int', number: 'float', string: 'string', boolean: 'bool', object: 'dict', array: 'list' }[
      type
    ] ?? type
  );
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
