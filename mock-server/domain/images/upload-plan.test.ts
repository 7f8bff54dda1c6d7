import { describe, expect, it } from 'vitest';
import { MAX_PARTS, planParts, S3_MIN_PART_SIZE } from './upload-plan.js';

const MIB = 1024 * 1024;

describe('planParts', () => {
  it('covers exactly the size: every part full but the last', () => {
    for (const size of [1, 5 * MIB, 8 * MIB, 8 * MIB + 1, 23 * MIB + 17, 1024 ** 3, 4 * 1024 ** 3]) {
      const { partSize, partCount } = planParts(size, 8 * MIB);
      expect(partSize * (partCount - 1)).toBeLessThan(size);
      expect(partSize * partCount).toBeGreaterThanOrEqual(size);
    }
  });

  it('keeps parts of at least 5 MiB and never more than the 512 the document allows', () => {
    expect(planParts(100, 1024).partSize).toBe(S3_MIN_PART_SIZE);
    const huge = planParts(4 * 1024 ** 3, 5 * MIB);
    expect(huge.partCount).toBeLessThanOrEqual(MAX_PARTS);
    expect(huge.partSize % MIB).toBe(0);
    const max = planParts(MAX_PARTS * 5 * MIB + 1, 5 * MIB);
    expect(max.partCount).toBeLessThanOrEqual(MAX_PARTS);
    expect(MAX_PARTS).toBe(512);
    expect(planParts(8 * 1024 ** 3, 8 * MIB).partCount).toBeLessThanOrEqual(512);
  });
});
