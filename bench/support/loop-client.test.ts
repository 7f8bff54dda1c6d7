import { describe, expect, it } from 'vitest';
import { judgePredictionLookups } from './loop-client.js';

describe('judgePredictionLookups', () => {
  it('counts a prediction gone with the image the loop deleted as expected, not lost', () => {
    expect(judgePredictionLookups([{ imageDeleted: true, httpStatus: 404 }])).toEqual({
      lost: 0,
      notCompleted: 0,
      outlivedImage: 0,
    });
  });

  it('counts a prediction that still answers after its image was deleted', () => {
    expect(
      judgePredictionLookups([{ imageDeleted: true, httpStatus: 200, status: 'COMPLETED' }]).outlivedImage,
    ).toBe(1);
  });

  it('counts a prediction of an image still there as lost when it no longer answers', () => {
    expect(judgePredictionLookups([{ imageDeleted: false, httpStatus: 404 }]).lost).toBe(1);
  });

  it('counts a prediction of an image still there that never completed', () => {
    const verdict = judgePredictionLookups([
      { imageDeleted: false, httpStatus: 200, status: 'FAILED' },
      { imageDeleted: false, httpStatus: 200, status: 'COMPLETED' },
    ]);
    expect(verdict).toEqual({ lost: 0, notCompleted: 1, outlivedImage: 0 });
  });
});
