import { describe, expect, it } from 'vitest';
import { percentile } from './report.js';

describe('percentile', () => {
  it('answers the nearest-rank value', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile([7], 99)).toBe(7);
  });

  it('answers 0 for no values', () => {
    expect(percentile([], 99)).toBe(0);
  });
});
