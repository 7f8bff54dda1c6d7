import { describe, expect, it } from 'vitest';
import { caseApplies, READINESS_CASES, type SeenRequest } from './readiness-cases.js';

const call = (operationId: string, status: number, responseBody?: unknown): SeenRequest => ({
  at: '2026-11-29T18:00:00.000Z',
  method: 'POST',
  path: `/api/v1/${operationId}`,
  operationId,
  status,
  durationMs: 1,
  fault: null,
  responseBody,
});
const partUrlExpired = READINESS_CASES.find((c) => c.id === 'part-url-expired')!;

describe('part-url-expired', () => {
  it('applies to every opening of a resumable upload, and to no one-request upload', () => {
    const plan = { part_size: 8, upload_id: 'u', urls: [{ part_number: 1, url: 'http://x' }] };
    const applies = (r: SeenRequest) => caseApplies(partUrlExpired, [call('listModels', 200), r]);
    expect(applies(call('uploadImage', 200, { success: true, image: {}, upload: plan }))).toBe(true);
    expect(applies(call('createImage', 200, { id: 'i', upload: plan }))).toBe(true);
    // an answer the journal kept cut is a plan's unless it says it has none
    expect(
      applies(call('uploadImage', 200, '{"success":true,"image":{},"upload":{"part_si… (9000 characters)')),
    ).toBe(true);
    expect(applies(call('uploadImage', 200, { success: true, image: {}, upload: null }))).toBe(false);
    expect(applies(call('createImage', 200, { id: 'i', upload: null }))).toBe(false);
    expect(applies(call('uploadImage', 402, { detail: 'Storage cap reached' }))).toBe(false);
  });

  it("is met by a complete refused for a part that never arrived, the mock's 422", () => {
    const refused = call('completeUpload', 422, {
      detail: 'No parts were uploaded: PUT each chunk to its presigned url before completing.',
    });
    expect(partUrlExpired.metBy([refused])).toBe(refused);
    const malformed = call('completeUpload', 422, { detail: [{ loc: ['body', 'parts'], msg: 'x' }] });
    expect(partUrlExpired.metBy([malformed])).toBeUndefined();
  });
});

describe('part-url-expired, one rule for the live read and a readiness run', () => {
  const opening = (id: string, name: string) =>
    call('uploadImage', 200, { success: true, image: { id, name, size: 1000 }, upload: { urls: [] } });
  const step = (operationId: string, id: string, status = 200) => ({
    ...call(operationId, status),
    path: `/api/v1/upload/${id}${operationId === 'completeUpload' ? '/complete' : ''}`,
  });

  it('is met by the same file opened again while its upload was still open, given up or not', () => {
    const again = opening('b', 'a.tif');
    expect(partUrlExpired.metBy([opening('a', 'a.tif'), again])).toBe(again);
    expect(partUrlExpired.metBy([opening('a', 'a.tif'), step('deleteUpload', 'a'), again])).toBe(again);
    const oneRequest = call('uploadImage', 200, {
      success: true,
      image: { id: 'c', name: 'a.tif', size: 1000 },
      upload: null,
    });
    expect(partUrlExpired.metBy([opening('a', 'a.tif'), oneRequest])).toBe(oneRequest);
  });

  it('is not met by a delete alone, the next file, or the file sent again after its upload completed', () => {
    expect(partUrlExpired.metBy([opening('a', 'a.tif'), step('deleteUpload', 'a')])).toBeUndefined();
    expect(partUrlExpired.metBy([opening('a', 'a.tif'), opening('b', 'b.tif')])).toBeUndefined();
    const completed = [opening('a', 'a.tif'), step('completeUpload', 'a', 202), opening('b', 'a.tif')];
    expect(partUrlExpired.metBy(completed)).toBeUndefined();
    // another upload's complete leaves this one open
    const other = [opening('a', 'a.tif'), step('completeUpload', 'z', 202), opening('b', 'a.tif')];
    expect(partUrlExpired.metBy(other)).toBe(other[2]);
  });
});
