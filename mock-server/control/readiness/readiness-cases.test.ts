import { describe, expect, it } from 'vitest';
import { READINESS_CASES, type SeenRequest } from './readiness-cases.js';

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
  it("is met by a complete refused for a part that never arrived, the mock's 422", () => {
    const refused = call('completeUpload', 422, {
      detail: 'No parts were uploaded: PUT each chunk to its presigned url before completing.',
    });
    expect(partUrlExpired.metBy([refused])).toBe(refused);
    const malformed = call('completeUpload', 422, { detail: [{ loc: ['body', 'parts'], msg: 'x' }] });
    expect(partUrlExpired.metBy([malformed])).toBeUndefined();
  });
});
