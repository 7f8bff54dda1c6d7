import { describe, expect, it } from 'vitest';
import { firstPixels } from '../geometry/trace-outline.js';
import { labelComponents, labelComponentsWithAreas } from './label.js';
import { maskFromPicture, prng, randomMask } from '../../../test-support/segmentation/test-helpers.js';

/** Flood-fill reference labelling, 4-connected, raster order. */
function referenceLabels(mask: Uint8Array, width: number, height: number): Int32Array {
  const out = new Int32Array(mask.length);
  let next = 0;
  for (let s = 0; s < mask.length; s++) {
    if (!mask[s] || out[s]) continue;
    out[s] = ++next;
    const stack = [s];
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % width;
      const y = (i - x) / width;
      const nb = [
        x > 0 ? i - 1 : -1,
        x < width - 1 ? i + 1 : -1,
        y > 0 ? i - width : -1,
        y < height - 1 ? i + width : -1,
      ];
      for (const j of nb) {
        if (j >= 0 && mask[j] && !out[j]) {
          out[j] = next;
          stack.push(j);
        }
      }
    }
  }
  return out;
}

describe('labelComponents', () => {
  it('labels a 5x5 mask 4-connected, in raster order of first pixel', () => {
    const { mask, width, height } = maskFromPicture(`
      ##..#
      .#.#.
      .##..
      ....#
      #..##`);
    const { labels, count } = labelComponents(mask, width, height);
    expect(count).toBe(5);
    expect([...labels]).toEqual([
      1,
      1,
      0,
      0,
      2, //
      0,
      1,
      0,
      3,
      0,
      0,
      1,
      1,
      0,
      0,
      0,
      0,
      0,
      0,
      4,
      5,
      0,
      0,
      4,
      4,
    ]);
  });

  it('merges a U shape whose arms are joined late (union-find)', () => {
    const { mask, width, height } = maskFromPicture(`
      #.#.#
      #.#.#
      #####`);
    const { labels, count } = labelComponents(mask, width, height);
    expect(count).toBe(1);
    expect(new Set(labels.filter((v) => v > 0))).toEqual(new Set([1]));
  });

  it('agrees with a flood-fill reference on random masks', () => {
    const rand = prng(11);
    for (let k = 0; k < 50; k++) {
      const w = 5 + Math.floor(rand() * 40);
      const h = 5 + Math.floor(rand() * 40);
      const mask = randomMask(rand, w, h, 0.3 + rand() * 0.4);
      const { labels, count } = labelComponents(mask, w, h);
      const ref = referenceLabels(mask, w, h);
      expect([...labels]).toEqual([...ref]);
      expect(count).toBe(Math.max(0, ...ref));
    }
  });

  it('agrees with the reference for any nonzero value and a mask at any byte offset', () => {
    const rand = prng(13);
    for (let k = 0; k < 40; k++) {
      const w = 1 + Math.floor(rand() * 45);
      const h = 1 + Math.floor(rand() * 45);
      const mask = randomMask(rand, w, h, 0.3 + rand() * 0.5);
      for (let i = 0; i < mask.length; i++)
        if (mask[i] && rand() < 0.3) mask[i] = 1 + Math.floor(rand() * 255);
      const offset = k % 4;
      const view = new Uint8Array(mask.length + offset).subarray(offset);
      view.set(mask);
      expect([...labelComponents(view, w, h).labels], `case ${k}, ${w} x ${h}`).toEqual([
        ...referenceLabels(mask, w, h),
      ]);
    }
  });

  it('reports the areas and first pixels a pass over the label image finds', () => {
    const rand = prng(12);
    for (let k = 0; k < 30; k++) {
      const w = 1 + Math.floor(rand() * 40);
      const h = 1 + Math.floor(rand() * 40);
      const {
        image,
        areas,
        firstPixels: first,
      } = labelComponentsWithAreas(randomMask(rand, w, h, 0.2 + rand() * 0.5), w, h);
      const counted = new Float64Array(image.count + 1);
      for (const l of image.labels) counted[l]++;
      expect([...areas]).toEqual([...counted]);
      expect([...first]).toEqual([...firstPixels(image)]);
    }
  });
});
