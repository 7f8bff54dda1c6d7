import type { ErrorObject } from 'ajv';

/** One item of a FastAPI-style 422 `detail` array. */
export interface ValidationItem {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

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
      return {
        loc: [...loc, String(p.missingProperty)],
        msg: 'Field required',
        type: 'missing',
        input: input ?? null,
        ctx: {},
      };
    case 'additionalProperties':
      return {
        loc: [...loc, String(p.additionalProperty)],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: isRecord(input) ? input[String(p.additionalProperty)] : null,
        ctx: {},
      };
    case 'format':
      if (p.format === 'uuid') {
        return {
          loc,
          msg: 'Input should be a valid UUID',
          type: 'uuid_parsing',
          input,
          ctx: { error: `'${String(input)}' is not a UUID` },
        };
      }
      return {
        loc,
        msg: `Input should be a valid ${String(p.format)}`,
        type: `${String(p.format)}_parsing`,
        input,
        ctx: {},
      };
    case 'type':
      return {
        loc,
        msg: `Input should be a valid ${typeWord(String(p.type))}`,
        type: `${typeKey(String(p.type))}_type`,
        input,
        ctx: {},
      };
    case 'enum':
    case 'const': {
      const allowed = (p.allowedValues as unknown[] | undefined) ?? [p.allowedValue];
      const expected = allowed.map((v) => `'${String(v)}'`).join(' or ');
      return { loc, msg: `Input should be ${expected}`, type: 'enum', input, ctx: { expected } };
    }
    case 'minimum':
      return {
        loc,
        msg: `Input should be greater than or equal to ${p.limit}`,
        type: 'greater_than_equal',
        input,
        ctx: { ge: p.limit },
      };
    case 'maximum':
      return {
        loc,
        msg: `Input should be less than or equal to ${p.limit}`,
        type: 'less_than_equal',
        input,
        ctx: { le: p.limit },
      };
    case 'minLength':
      return {
        loc,
        msg: `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        type: 'string_too_short',
        input,
        ctx: { min_length: p.limit },
      };
    case 'maxLength':
      return {
        loc,
        msg: `String should have at most ${p.limit} characters`,
        type: 'string_too_long',
        input,
        ctx: { max_length: p.limit },
      };
    case 'minItems':
      return {
        loc,
        msg: `List should have at least ${p.limit} items`,
        type: 'too_short',
        input,
        ctx: { min_length: p.limit },
      };
    case 'maxItems':
      return {
        loc,
        msg: `List should have at most ${p.limit} items`,
        type: 'too_long',
        input,
        ctx: { max_length: p.limit },
      };
    case 'pattern':
      return {
        loc,
        msg: `String should match pattern '${p.pattern}'`,
        type: 'string_pattern_mismatch',
        input,
        ctx: { pattern: p.pattern },
      };
    case 'parse':
      return {
        loc: ['body', '0'],
        msg: 'JSON decode error',
        type: 'json_invalid',
        input: {},
        ctx: { error: error.message ?? '' },
      };
    default:
      return { loc, msg: error.message ?? 'Invalid input', type: error.keyword, input, ctx: {} };
  }
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
