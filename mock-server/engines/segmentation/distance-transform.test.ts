import { describe, expect, it } from 'vitest';
import { squaredDistanceTransform } from './distance-transform.js';
import { prng, randomMask } from '../../../test-support/segmentation/test-helpers.js';

function bruteForce(mask: Uint8Array, width: number): Float64Array {
  const out = new Float64Array(mask.length);
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const x = i % width;
    const y = (i - x) / width;
    let best = Infinity;
    for (let j = 0; j < mask.length; j++) {
      if (mask[j]) continue;
      const bx = j % width;
      const by = (j - bx) / width;
      best = Math.min(best, (bx - x) ** 2 + (by - y) ** 2);
    }
    out[i] = best;
  }
  return out;
}

describe('squaredDistanceTransform', () => {
  it('hand-checked: distances inside a 5x5 block in a 7x7 image', () => {
    const w = 7;
    const mask = new Uint8Array(w * w);
    for (let y = 1; y < 6; y++) for (let x = 1; x < 6; x++) mask[y * w + x] = 1;
    const d = squaredDistanceTransform(mask, w, w);
    expect(d[0]).toBe(0);
    expect(d[1 * w + 1]).toBe(1);
    expect(d[2 * w + 2]).toBe(4);
    expect(d[3 * w + 3]).toBe(9);
    expect(d[3 * w + 2]).toBe(4);
  });

  it('is exact on random masks (brute force)', () => {
    const rand = prng(5);
    for (let k = 0; k < 80; k++) {
      const w = 3 + Math.floor(rand() * 40);
      const h = 3 + Math.floor(rand() * 40);
      const mask = randomMask(rand, w, h, 0.5 + rand() * 0.45, k % 4);
      if (mask.every((v) => v === 1)) mask[0] = 0;
      expect([...squaredDistanceTransform(mask, w, h)]).toEqual([...bruteForce(mask, w)]);
    }
  });

  it('gives Infinity when there is no background', () => {
    expect([...squaredDistanceTransform(new Uint8Array(4).fill(1), 2, 2)]).toEqual([
      Infinity,
      Infinity,
      Infinity,
      Infinity,
    ]);
  });
});
