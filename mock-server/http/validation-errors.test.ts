import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { toValidationItems } from './validation-errors.js';

const request = { path: {}, query: {}, body: { name: 'x', tags: [], size: 0 } };
const itemOf = (keyword: string, params: Record<string, unknown>, instancePath = '/requestBody/name') =>
  toValidationItems(
    [{ keyword, params, instancePath, schemaPath: '', message: 'ajv says' } as ErrorObject],
    request,
  )[0];

describe("a schema's refusals in pydantic 2's words", () => {
  it.each([
    ['minimum', { limit: 1 }, 'Input should be greater than or equal to 1', 'greater_than_equal', { ge: 1 }],
    ['maximum', { limit: 9 }, 'Input should be less than or equal to 9', 'less_than_equal', { le: 9 }],
    [
      'minLength',
      { limit: 1 },
      'String should have at least 1 character',
      'string_too_short',
      { min_length: 1 },
    ],
    [
      'minLength',
      { limit: 3 },
      'String should have at least 3 characters',
      'string_too_short',
      { min_length: 3 },
    ],
    [
      'maxLength',
      { limit: 5 },
      'String should have at most 5 characters',
      'string_too_long',
      { max_length: 5 },
    ],
    ['minItems', { limit: 1 }, 'List should have at least 1 items', 'too_short', { min_length: 1 }],
    ['maxItems', { limit: 2 }, 'List should have at most 2 items', 'too_long', { max_length: 2 }],
    [
      'pattern',
      { pattern: '^a$' },
      "String should match pattern '^a$'",
      'string_pattern_mismatch',
      { pattern: '^a$' },
    ],
    ['type', { type: 'object' }, 'Input should be a valid dictionary', 'dict_type', {}],
    ['type', { type: 'integer' }, 'Input should be a valid integer', 'int_type', {}],
    ['type', { type: 'number' }, 'Input should be a valid number', 'float_type', {}],
    ['type', { type: 'array' }, 'Input should be a valid list', 'list_type', {}],
    ['type', { type: 'null' }, 'Input should be a valid null', 'null_type', {}],
    ['multipleOf', { multipleOf: 2 }, 'ajv says', 'multipleOf', {}],
  ])('%s %o', (keyword, params, msg, type, ctx) => {
    expect(itemOf(keyword, params)).toEqual({ loc: ['body', 'name'], msg, type, input: 'x', ctx });
  });
});
