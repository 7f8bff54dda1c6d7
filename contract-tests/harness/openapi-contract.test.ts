import { describe, expect, it } from 'vitest';
import { sharedContract } from './openapi-contract.js';

const refused = { detail: 'Rate limit reached' };
const json = 'application/json';

describe("the document's response validation", () => {
  it('requires the headers the document requires: Retry-After on a 429, an integer of at least 1', () => {
    const contract = sharedContract();
    const judge = (headers: Record<string, string>) =>
      contract.validateResponse('listModels', 429, json, refused, new Headers(headers)).map((v) => v.message);
    expect(judge({ 'retry-after': '2' })).toEqual([]);
    expect(judge({})).toEqual(['listModels 429: required header Retry-After is missing']);
    expect(judge({ 'retry-after': 'soon' })).toEqual([
      'listModels 429: header Retry-After is "soon", not an integer of at least 1',
    ]);
    expect(judge({ 'retry-after': '0' })[0]).toMatch(/not an integer of at least 1/);
  });

  it('leaves headers alone when none are given (a caller that has only the body)', () => {
    expect(sharedContract().validateResponse('listModels', 429, json, refused)).toEqual([]);
  });
});
