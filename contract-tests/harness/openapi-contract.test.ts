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

  it("holds a header that is present to its schema's pattern: its Content-Disposition an attachment as RFC 6266 reads it, an export's ETag strong under EXP-11 alone", () => {
    const contract = sharedContract();
    const judge = (headers: Record<string, string>) =>
      contract.validateResponse('exportRoisGeojson', 304, null, Buffer.alloc(0), new Headers(headers));
    expect(judge({ etag: '"3q2-7wEjR1mN0k5sPzV4bA"' })).toEqual([]);
    expect(judge({})).toEqual([]); // optional: a target may send no validator at all
    // strength is the document's choice (a gzip proxy weakens a tag): EXP-11's, no other check's
    expect(judge({ etag: 'W/"3q2-7wEjR1mN0k5sPzV4bA"' })).toEqual([
      {
        message: `exportRoisGeojson 304: header ETag is "W/\\"3q2-7wEjR1mN0k5sPzV4bA\\"", which does not match the document's pattern ^"[^"]*"$ (EXP-11)`,
        clause: 'EXP-11',
      },
    ]);
    const csv = (disposition: string) =>
      contract
        .validateResponse(
          'exportMeasurementsCsv',
          200,
          'text/csv',
          Buffer.from('roi_index\n'),
          new Headers({ 'content-disposition': disposition }),
        )
        .map((v) => v.message);
    expect(csv('attachment; filename="a_measurements.csv"')).toEqual([]);
    // the type in any case, and alone (RFC 6266 4.1)
    expect(csv('Attachment; filename="a_measurements.csv"')).toEqual([]);
    expect(csv('ATTACHMENT')).toEqual([]);
    expect(csv('attachment')).toEqual([]);
    expect(csv('inline; filename="a_measurements.csv"')[0]).toMatch(/Content-Disposition .* pattern/);
    expect(csv('attachments; filename="a_measurements.csv"')[0]).toMatch(/Content-Disposition .* pattern/);
  });

  it('leaves headers alone when none are given (a caller that has only the body)', () => {
    expect(sharedContract().validateResponse('listModels', 429, json, refused)).toEqual([]);
  });
});
