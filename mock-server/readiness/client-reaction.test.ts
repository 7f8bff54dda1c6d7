/** How a client reacted, read from a run's journal: the sentences the readiness report prints. */
import { describe, expect, it } from 'vitest';
import type { SeenRequest } from '../control/readiness/readiness-cases.js';
import { CASE_ARMING } from './case-arming.js';
import { clientReaction } from './client-reaction.js';

/** A request answered at `endMs` after a fixed start, having taken `durationMs`. */
function seen(
  endMs: number,
  operationId: string,
  status: number,
  extra: Partial<SeenRequest> = {},
): SeenRequest {
  return {
    at: new Date(Date.UTC(2026, 10, 27, 12) + endMs).toISOString(),
    method: 'GET',
    path: `/api/v1/${operationId}`,
    operationId,
    status,
    durationMs: 1,
    fault: null,
    ...extra,
  };
}

describe('clientReaction', () => {
  it('tells a retry after Retry-After from one too fast, and giving up from both', () => {
    const limited = seen(0, 'getPrediction', 429, { fault: 'f1' });
    expect(clientReaction('rate-limited', [limited, seen(1100, 'getPrediction', 200)])).toBe(
      'retried getPrediction after Retry-After (1099 ms later; it said 1 s)',
    );
    expect(clientReaction('rate-limited', [limited, seen(40, 'getPrediction', 200)])).toBe(
      'retried getPrediction too fast: 39 ms after a Retry-After of 1 s',
    );
    expect(clientReaction('rate-limited', [limited, seen(2000, 'exportMeasurementsCsv', 200)])).toBe(
      'gave up: never called getPrediction again after the 429',
    );
  });

  it('counts the polls after FAILED, and a client that timed out a slow answer', () => {
    const poll = (end: number, status: string) =>
      seen(end, 'getPrediction', 200, { path: '/api/v1/predict/p1', responseBody: { status } });
    expect(clientReaction('prediction-failed', [poll(0, 'STARTED'), poll(10, 'FAILED')])).toBe(
      'stopped polling at FAILED',
    );
    expect(
      clientReaction('prediction-failed', [poll(10, 'FAILED'), poll(20, 'FAILED'), poll(30, 'FAILED')]),
    ).toBe('polled on after FAILED (2 more polls)');
    const abandoned = seen(8000, 'getPrediction', 0, { fault: 'f2', durationMs: 8000 });
    expect(clientReaction('slow-answer', [abandoned, seen(8600, 'getPrediction', 200)])).toBe(
      'timed out after 8000 ms, then sent getPrediction again',
    );
  });
});

describe('part-url-expired', () => {
  const missed = CASE_ARMING['part-url-expired'].missedAfterActing;
  /** The mock's refusal of a complete whose part never arrived. */
  const refused = (endMs: number) =>
    seen(endMs, 'completeUpload', 422, {
      responseBody: {
        detail: 'No parts were uploaded: PUT each chunk to its presigned url before completing.',
      },
    });
  it('is not reached when the upload completed before the clock moved, and reached when its complete was refused', () => {
    const opened = seen(0, 'uploadImage', 200, { responseBody: { upload: { urls: [] } } });
    expect(missed?.([opened, seen(30, 'completeUpload', 200)])).toMatch(/before the clock moved/);
    expect(missed?.([opened, refused(900)])).toBeNull();
    expect(clientReaction('part-url-expired', [opened, refused(900)])).toBe(
      'completed the upload although its parts were refused (422)',
    );
    // A 422 for another reason (the upload no longer open) says nothing of the part URLs.
    const closed = seen(900, 'completeUpload', 422, { responseBody: { detail: 'Image is not uploading' } });
    expect(missed?.([opened, closed])).not.toBeNull();
    const again = seen(950, 'uploadImage', 200, { responseBody: { upload: null } });
    expect(clientReaction('part-url-expired', [opened, again])).toBe('sent the image again in one request');
  });

  it('is reached by a client that gave the upload up and opened a new one for fresh part URLs', () => {
    const opened = seen(0, 'uploadImage', 200, { responseBody: { upload: { urls: [] } } });
    const reopened = { ...opened, at: seen(60, 'uploadImage', 200).at };
    const journal = [opened, seen(40, 'deleteUpload', 200), reopened, seen(90, 'completeUpload', 202)];
    expect(missed?.(journal)).toBeNull();
    expect(missed?.([opened, reopened, seen(90, 'completeUpload', 202)])).toBeNull();
    expect(clientReaction('part-url-expired', journal)).toBe('opened a new upload for fresh part URLs');
  });

  it('is not met by a client that gives the upload up and never sends the file again', () => {
    const opened = seen(0, 'uploadImage', 200, { responseBody: { upload: { urls: [] } } });
    for (const giveUp of ['deleteUpload', 'abortUpload']) {
      const journal = [opened, seen(40, giveUp, 200)];
      expect(missed?.(journal)).toBe(
        `the client gave the upload up (${giveUp}) and never sent the file again, neither in a new upload of the same name and size (fresh part URLs) nor in one request`,
      );
      expect(clientReaction('part-url-expired', journal)).toBe(
        `gave the upload up (${giveUp}) and never sent the file again`,
      );
      // given up, then another file's upload completed: still never this file again
      const another = seen(60, 'uploadImage', 200, {
        responseBody: { image: { name: 'other.tif', size: 5 }, upload: { urls: [] } },
      });
      expect(missed?.([...journal, another, seen(90, 'completeUpload', 202)])).toMatch(
        /^the client gave the upload up/,
      );
    }
  });

  it('is not met by a client that does nothing more with the upload', () => {
    const opened = seen(0, 'uploadImage', 200, { responseBody: { upload: { urls: [] } } });
    expect(missed?.([opened, seen(40, 'getUpload', 200)])).toMatch(/^the journal shows no sign/);
    expect(clientReaction('part-url-expired', [opened])).toBeNull();
  });
});

describe('part-url-expired, a client with several files', () => {
  const missed = CASE_ARMING['part-url-expired'].missedAfterActing;
  const upload = (endMs: number, name: string, size: number) =>
    seen(endMs, 'uploadImage', 200, {
      responseBody: { image: { id: `id-${name}`, name, size }, upload: { urls: [] } },
    });

  it('is not met by moving on to its next file: only the same file opened again asks fresh part URLs', () => {
    const first = upload(0, 'a.tif', 10);
    const next = [upload(60, 'b.tif', 20), seen(90, 'completeUpload', 202)];
    expect(missed?.([first, ...next])).not.toBeNull();
    expect(clientReaction('part-url-expired', [first, ...next])).toBeNull();
    const again = [upload(60, 'a.tif', 10), seen(90, 'completeUpload', 202)];
    expect(missed?.([first, ...again])).toBeNull();
    expect(clientReaction('part-url-expired', [first, ...again])).toBe(
      'opened a new upload for fresh part URLs',
    );
  });

  it('reads the file of a createImage answer, the image itself', () => {
    const created = (endMs: number, name: string, size: number) =>
      seen(endMs, 'createImage', 200, {
        responseBody: { id: `id-${name}`, name, size, upload: { urls: [] } },
      });
    const first = created(0, 'a.tif', 10);
    expect(missed?.([first, created(60, 'b.tif', 20), seen(90, 'completeUpload', 202)])).not.toBeNull();
    expect(missed?.([first, created(60, 'a.tif', 10), seen(90, 'completeUpload', 202)])).toBeNull();
  });

  it('reads the file of an answer the journal kept cut from its start', () => {
    const cut = (endMs: number, name: string) =>
      seen(endMs, 'uploadImage', 200, {
        responseBody: `{"image":{"id":"x","name":"${name}","size":10,"upload_status":"uploading"},"upload":{"urls":[`,
      });
    expect(missed?.([cut(0, 'a.tif'), cut(60, 'b.tif'), seen(90, 'completeUpload', 202)])).not.toBeNull();
    expect(missed?.([cut(0, 'a.tif'), cut(60, 'a.tif'), seen(90, 'completeUpload', 202)])).toBeNull();
  });
});
