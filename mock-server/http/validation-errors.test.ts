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

describe("an item's input: the value refused, as FastAPI's item carries it", () => {
  const refusal = (keyword: string, instancePath: string, body: unknown, params = {}) =>
    toValidationItems(
      [{ keyword, params, instancePath, schemaPath: '', message: 'ajv says' } as ErrorObject],
      { path: {}, query: {}, body },
    )[0];

  it("is the item of a list too: a part's part_number, its etag", () => {
    const body = {
      parts: [
        { part_number: 1, etag: '"a"' },
        { part_number: 0, etag: '"b"' },
      ],
    };
    const item = refusal('minimum', '/requestBody/parts/1/part_number', body, { limit: 1 });
    expect(item).toMatchObject({ loc: ['body', 'parts', '1', 'part_number'], input: 0 });
    expect(refusal('maxLength', '/requestBody/parts/0/etag', body, { limit: 1 }).input).toBe('"a"');
    expect(refusal('required', '/requestBody/parts/1', body, { missingProperty: 'x' }).input).toEqual(
      body.parts[1],
    );
  });

  it('is cut past about 1024 characters: a string ends with …, a list or an object ends early', () => {
    const etag = 'e'.repeat(100_000);
    const body = { parts: [{ part_number: 1, etag }] };
    const long = refusal('maxLength', '/requestBody/parts/0/etag', body, { limit: 64 }).input as string;
    expect(long).toBe(`${'e'.repeat(1024)}…`);
    const many = { tags: Array.from({ length: 10_000 }, (_, i) => `tag-${i}`) };
    const list = refusal('maxItems', '/requestBody/tags', many, { limit: 10 }).input as string[];
    expect(list.slice(0, 3)).toEqual(['tag-0', 'tag-1', 'tag-2']);
    expect(JSON.stringify(list).length).toBeLessThan(1200);
    const missing = refusal(
      'required',
      '/requestBody',
      { name: etag, other: etag },
      { missingProperty: 'size' },
    );
    expect(JSON.stringify(missing.input).length).toBeLessThan(1200);
    expect(Object.keys(missing.input as object)).toEqual(['name']);
  });

  it('is whole when short, and null where nothing was sent', () => {
    expect(refusal('maxLength', '/requestBody/name', { name: 'x'.repeat(1000) }).input).toBe(
      'x'.repeat(1000),
    );
    expect(refusal('type', '/requestBody/parts/9/etag', { parts: [] }, { type: 'string' }).input).toBeNull();
  });
});
