import { describe, expect, it } from 'vitest';
import { labelImageToResult } from './label-image-to-result.js';
import { prng, randomLabelImage } from '../../../test-support/segmentation/test-helpers.js';
import { expectValidResult } from '../../../test-support/segmentation/expect-valid-result.js';
import type { LabelImage } from './types.js';

describe('labelImageToResult', () => {
  it('a ring-shaped label with another object inside becomes one hole-free object', () => {
    const image: LabelImage = {
      width: 6,
      height: 6,
      count: 2,
      labels: Int32Array.of(
        0,
        0,
        0,
        0,
        0,
        0, //
        0,
        1,
        1,
        1,
        1,
        0,
        0,
        1,
        2,
        0,
        1,
        0,
        0,
        1,
        0,
        0,
        1,
        0,
        0,
        1,
        1,
        1,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
      ),
    };
    const { result, labels } = labelImageToResult(image);
    expect(result.objects).toHaveLength(1);
    expect(result.objects[0].measurements.areaPx).toBe(16);
    expect(result.objects[0].outline).toEqual([
      [5, 5],
      [1, 5],
      [1, 1],
      [5, 1],
    ]);
    expectValidResult(result, labels);
  });

  it('a pinched label gives a simple ring (pinch filled)', () => {
    const image: LabelImage = {
      width: 4,
      height: 4,
      count: 1,
      labels: Int32Array.of(1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0),
    };
    const { result, labels } = labelImageToResult(image);
    expect(result.objects[0].measurements.areaPx).toBe(8);
    expectValidResult(result, labels);
  });

  it('property: random label images give valid rings that agree with brute force', () => {
    const rand = prng(99);
    let objects = 0;
    for (let k = 0; k < 150; k++) {
      const w = 3 + Math.floor(rand() * 40);
      const h = 3 + Math.floor(rand() * 40);
      const input = randomLabelImage(rand, w, h, 1 + Math.floor(rand() * 15));
      const { result, labels } = labelImageToResult(input);
      expectValidResult(result, labels);
      objects += result.objects.length;
    }
    expect(objects).toBeGreaterThan(300);
  });

  it('is deterministic and does not modify its input', () => {
    const input = randomLabelImage(prng(7), 40, 30, 10);
    const copy = input.labels.slice();
    const a = labelImageToResult(input);
    const b = labelImageToResult(input);
    expect(b).toEqual(a);
    expect(input.labels).toEqual(copy);
  });
});
