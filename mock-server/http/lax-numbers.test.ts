import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMock } from '../server.js';
import { readNumber } from './lax-numbers.js';

const INT_PARSING = 'int_parsing';
const FLOAT_PARSING = 'float_parsing';
const typeOf = (read: ReturnType<typeof readNumber>) => (typeof read === 'number' ? read : read.type);

describe("a number read from a string as pydantic 2 reads it (lax mode, FastAPI's query)", () => {
  it.each([
    ['512', 512],
    [' 12 ', 12],
    ['+5', 5],
    ['012', 12],
    ['1.0', 1],
    ['1.00', 1],
    ['1_000', 1000],
    ['1e3', INT_PARSING],
    ['0x10', INT_PARSING],
    ['1.5', INT_PARSING],
    ['1.', INT_PARSING],
    ['', INT_PARSING],
    [' ', INT_PARSING],
    ['1__0', INT_PARSING],
    ['_1', INT_PARSING],
    ['+-1', INT_PARSING],
    ['9'.repeat(4301), 'int_parsing_size'],
  ])('integer %j: %s', (text, expected) => {
    expect(typeOf(readNumber('integer', text))).toBe(expected);
  });

  it.each([
    ['1', 1],
    [' 0.5 ', 0.5],
    ['.5', 0.5],
    ['1.', 1],
    ['1e-1', 0.1],
    ['+.5E+0', 0.5],
    ['1_0', 10],
    ['inf', Infinity],
    ['-Infinity', -Infinity],
    ['0x1', FLOAT_PARSING],
    ['', FLOAT_PARSING],
    [' ', FLOAT_PARSING],
    ['.', FLOAT_PARSING],
    ['1e', FLOAT_PARSING],
    [' 1_0', FLOAT_PARSING],
    ['1,5', FLOAT_PARSING],
  ])('number %j: %s', (text, expected) => {
    expect(typeOf(readNumber('number', text))).toBe(expected);
  });

  it('reads nan as NaN', () => {
    expect(readNumber('number', 'NaN')).toBeNaN();
  });
});

describe("the overlay's options on the wire", () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0 });
  });
  afterAll(() => mock.close());

  const overlay = async (query: string) => {
    const key = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
    const answer = await fetch(`${mock.url}/api/v1/export/${randomUUID()}/overlay.png?${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return { status: answer.status, body: (await answer.json()) as { detail: unknown } };
  };

  it.each([
    ['fill_opacity=0x1', ['fill_opacity', FLOAT_PARSING, '0x1', {}]],
    ['fill_opacity=%20', ['fill_opacity', FLOAT_PARSING, ' ', {}]],
    ['fill_opacity=', ['fill_opacity', FLOAT_PARSING, '', {}]],
    ['fill_opacity=nan', ['fill_opacity', 'less_than_equal', 'nan', { le: 1 }]],
    ['fill_opacity=-inf', ['fill_opacity', 'greater_than_equal', '-inf', { ge: 0 }]],
    ['max_size=1e3', ['max_size', INT_PARSING, '1e3', {}]],
    ['max_size=0x100', ['max_size', INT_PARSING, '0x100', {}]],
    ['max_size=%20', ['max_size', INT_PARSING, ' ', {}]],
  ])('%s answers 422 as FastAPI does', async (query, [name, type, input, ctx]) => {
    const { status, body } = await overlay(query);
    expect(status).toBe(422);
    expect(body.detail).toEqual([expect.objectContaining({ loc: ['query', name], type, input, ctx })]);
  });

  it('takes what pydantic reads (then looks the segmentation up: 404)', async () => {
    for (const query of [
      'max_size=1_000',
      'max_size=%201024%20',
      'max_size=512.0',
      'fill_opacity=.5',
      'fill_opacity=5e-1',
    ])
      expect([query, (await overlay(query)).status]).toEqual([query, 404]);
  });
});
