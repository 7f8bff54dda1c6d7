import { describe, expect, it } from 'vitest';
import { prng } from '../../../test-support/segmentation/test-helpers.js';
import { otsuThreshold } from './otsu.js';
import { otsuMask, thresholdMask } from './threshold.js';
import { otsuMaskSimd } from './threshold-simd.js';

describe('otsuMaskSimd (threshold.wat)', () => {
  const rand = prng(31);

  /** Pixels drawn from `levels` random values (smoothed images have few), or from the full range. */
  function randomPlane(bits: 8 | 16, n: number, levels: number): Uint8Array | Uint16Array {
    const data = bits === 8 ? new Uint8Array(n) : new Uint16Array(n);
    const palette = Array.from({ length: levels }, () => Math.floor(rand() * 2 ** bits));
    for (let i = 0; i < n; i++)
      data[i] = levels > 0 ? palette[Math.floor(rand() * levels)] : Math.floor(rand() * 2 ** bits);
    return data;
  }

  it('gives the threshold and mask of otsuThreshold and thresholdMask, for every length and depth', () => {
    let compared = 0;
    for (const n of [1, 2, 3, 5, 15, 16, 17, 31, 33, 100, 257, 4099])
      for (const bits of [8, 16] as const)
        for (const levels of [1, 2, 7, 300, 0])
          for (const polarity of ['bright', 'dark'] as const) {
            const data = randomPlane(bits, n, levels);
            // Called directly: a null here means the fallback would have hidden a broken module.
            const simd = otsuMaskSimd(data, polarity === 'dark');
            expect(simd, `${n} px ${bits}-bit`).not.toBeNull();
            const threshold = otsuThreshold(data);
            expect(simd!.threshold, `${n} px ${bits}-bit ${levels} levels`).toBe(threshold);
            expect(
              Buffer.from(simd!.mask).equals(Buffer.from(thresholdMask(data, threshold, polarity))),
              `${n} px ${bits}-bit ${levels} levels ${polarity}`,
            ).toBe(true);
            compared++;
          }
    expect(compared).toBe(12 * 2 * 5 * 2);
  });

  it('takes the extreme values: 0 and 65535 both present', () => {
    const data = Uint16Array.of(0, 65535, 65535, 0, 0, 40000, 65535);
    const simd = otsuMaskSimd(data, false)!;
    expect(simd.threshold).toBe(otsuThreshold(data));
    expect([...simd.mask]).toEqual([...thresholdMask(data, simd.threshold, 'bright')]);
  });

  it('reuses its memory across sizes without mixing images', () => {
    const big = randomPlane(16, 70000, 0);
    const small = randomPlane(16, 9, 3);
    const first = otsuMask(small, 'bright');
    otsuMask(big, 'dark');
    expect(otsuMask(small, 'bright')).toEqual(first);
    expect(first.threshold).toBe(otsuThreshold(small));
  });

  it('refuses an empty image and an unknown polarity', () => {
    expect(() => otsuMask(new Uint16Array(0), 'bright')).toThrow(/empty/);
    expect(() => otsuMask(Uint8Array.of(1), 'grey' as never)).toThrow(/polarity/);
  });
});
