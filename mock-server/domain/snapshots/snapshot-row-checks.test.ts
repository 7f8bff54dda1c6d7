import { describe, expect, it } from 'vitest';
import type { SegmentationRow } from '../predictions/prediction-record.js';
import { segmentationOwnerProblem } from './snapshot-row-checks.js';

describe("a snapshot's segmentation, held or a row, is of its own prediction", () => {
  const segmentation = {
    id: 's1',
    organizationId: 'acme',
    imageId: 'i1',
    predictionId: 'p1',
  } as SegmentationRow;

  it('passes when the organization and the image are its prediction’s', () => {
    expect(segmentationOwnerProblem(segmentation, { organizationId: 'acme', imageId: 'i1' })).toBeUndefined();
  });

  it('names another organization, another image, or a prediction the snapshot lacks', () => {
    expect(segmentationOwnerProblem(segmentation, { organizationId: 'beta', imageId: 'i1' })).toBe(
      'segmentation "s1" is of organization "acme", its prediction of "beta"',
    );
    expect(segmentationOwnerProblem(segmentation, { organizationId: 'acme', imageId: 'i2' })).toBe(
      'segmentation "s1" is of image "i1", its prediction of "i2"',
    );
    expect(segmentationOwnerProblem(segmentation, undefined)).toBe(
      'segmentation "s1": its prediction is not a row of the snapshot',
    );
  });
});
