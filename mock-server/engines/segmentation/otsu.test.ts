import { describe, expect, it } from 'vitest';
import { otsuThreshold } from './otsu.js';

describe('otsuThreshold', () => {
  it('hand-checked bimodal case: the first of the equal maxima, the low class value', () => {
    // Classes {10} and {200}: every t in 10..199 gives the same between-class variance; the first wins.
    expect(otsuThreshold(Uint8Array.of(10, 10, 10, 200, 200, 200))).toBe(10);
    // Adding a middle value closer to the high class moves the split below it.
    expect(otsuThreshold(Uint8Array.of(10, 10, 10, 150, 200, 200, 200))).toBe(10);
    expect(otsuThreshold(Uint8Array.of(10, 10, 10, 60, 200, 200, 200))).toBe(60);
  });

  it('matches skimage on an 8-bit array', () => {
    // /usr/bin/python3, scikit-image 0.19.3:
    //   b = np.array([[12,15,200,210],[14,13,190,205],[10,220,11,198],[16,17,18,230]], np.uint8)
    //   filters.threshold_otsu(b) -> 18
    const b = Uint8Array.of(12, 15, 200, 210, 14, 13, 190, 205, 10, 220, 11, 198, 16, 17, 18, 230);
    expect(otsuThreshold(b)).toBe(18);
    //   w = np.array([(i*37 % 101) + (120 if i % 4 == 0 else 0) for i in range(400)], np.uint8)
    //   filters.threshold_otsu(w) -> 100
    const w = new Uint8Array(400);
    for (let i = 0; i < 400; i++) w[i] = ((i * 37) % 101) + (i % 4 === 0 ? 120 : 0);
    expect(otsuThreshold(w)).toBe(100);
  });

  it('matches skimage on a 16-bit array', () => {
    //   v = np.array([(20000 + (i*104729) % 5003) if i % 3 == 0 else
    //                 (1000 + (i*7919) % 997 + (i % 7) * 300) for i in range(1000)], np.uint16)
    //   filters.threshold_otsu(v) -> 3654
    const v = new Uint16Array(1000);
    for (let i = 0; i < 1000; i++)
      v[i] = i % 3 === 0 ? 20000 + ((i * 104729) % 5003) : 1000 + ((i * 7919) % 997) + (i % 7) * 300;
    expect(otsuThreshold(v)).toBe(3654);
  });

  it('returns the value of a constant image and rejects an empty one', () => {
    expect(otsuThreshold(new Uint16Array(5).fill(321))).toBe(321);
    expect(() => otsuThreshold(new Uint8Array(0))).toThrow();
  });
});
