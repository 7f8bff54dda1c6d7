import { describe, expect, it } from 'vitest';
import { otsuMask, thresholdMask } from './threshold.js';

describe('thresholdMask', () => {
  const data = Uint8Array.of(0, 5, 9, 10, 11, 200);
  it("'bright' selects value > t", () => {
    expect([...thresholdMask(data, 10, 'bright')]).toEqual([0, 0, 0, 0, 1, 1]);
  });
  it("'dark' selects value <= t, the complement", () => {
    expect([...thresholdMask(data, 10, 'dark')]).toEqual([1, 1, 1, 1, 0, 0]);
  });
  it('rejects an unknown polarity', () => {
    expect(() => thresholdMask(data, 1, 'grey' as never)).toThrow(/polarity/);
  });
});

describe('otsuMask', () => {
  it('refuses an empty image and an unknown polarity', () => {
    expect(() => otsuMask(new Uint16Array(0), 'bright')).toThrow(/empty/);
    expect(() => otsuMask(Uint8Array.of(1), 'grey' as never)).toThrow(/polarity/);
  });
});
