import { describe, expect, it } from 'vitest';
import { labelEqualValueComponents } from './equal-value-components.js';

describe('labelEqualValueComponents', () => {
  it('gives every pixel, background included, a 4-connected component of equal value', () => {
    const values = Int32Array.of(
      0,
      0,
      2, //
      1,
      0,
      2,
      1,
      2,
      0,
    );
    const { components, count } = labelEqualValueComponents(values, 3, 3);
    expect(count).toBe(5);
    expect([...components]).toEqual([0, 0, 1, 2, 0, 1, 2, 3, 4]);
  });
});
