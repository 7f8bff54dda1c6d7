import { describe, expect, it } from 'vitest';
import { relabelInRasterOrder } from './filter-objects.js';
import { labelEqualValueComponents } from '../../../test-support/segmentation/equal-value-components.js';
import { repairLabelImage } from './repair-labels.js';
import {
  complementReachesBorder,
  prng,
  randomLabelImage,
} from '../../../test-support/segmentation/test-helpers.js';
import type { LabelImage } from './types.js';

const img = (width: number, rows: number[]): LabelImage => ({
  width,
  height: rows.length / width,
  labels: Int32Array.from(rows),
  count: Math.max(0, ...rows),
});

describe('repairLabelImage', () => {
  it('fills a hole and absorbs an object enclosed by another', () => {
    const { image } = repairLabelImage(
      img(5, [
        0,
        0,
        0,
        0,
        0, //
        0,
        1,
        1,
        1,
        0,
        0,
        1,
        2,
        1,
        0,
        0,
        1,
        0,
        1,
        0,
        0,
        1,
        1,
        1,
        0,
      ]),
    );
    expect(image.count).toBe(1);
    expect([...image.labels]).toEqual([
      0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0,
    ]);
  });

  it('removes a pinch: the pixel enclosed by an 8-connected loop goes to the object', () => {
    // Label 1 is 4-connected but touches itself at the corner between (1,2) and (2,1).
    const { image } = repairLabelImage(
      img(4, [
        1,
        1,
        1,
        0, //
        1,
        0,
        1,
        0,
        1,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
      ]),
    );
    expect(image.labels[1 * 4 + 1]).toBe(1);
    expect(image.labels[2 * 4 + 2]).toBe(0);
  });

  it('does not fill a region enclosed by two objects together', () => {
    const input = img(5, [
      1,
      1,
      2,
      2,
      0, //
      1,
      0,
      0,
      2,
      0,
      1,
      1,
      2,
      2,
      0,
    ]);
    const { image } = repairLabelImage(input);
    expect([...image.labels]).toEqual([...input.labels]);
  });

  it('keeps the largest 4-connected part of a split label and preserves label order', () => {
    const { image } = repairLabelImage(
      img(6, [
        5,
        0,
        9,
        9,
        0,
        5, //
        0,
        0,
        9,
        9,
        0,
        5,
        7,
        0,
        0,
        0,
        0,
        5,
      ]),
    );
    expect(image.count).toBe(3);
    // 5 -> 1, 7 -> 2, 9 -> 3; the lone pixel of 5 at the top left is dropped.
    expect([...image.labels]).toEqual([0, 0, 3, 3, 0, 1, 0, 0, 3, 3, 0, 1, 2, 0, 0, 0, 0, 1]);
  });

  it('random label images: every label is one 4-connected part with a complement open to the border; idempotent', () => {
    const rand = prng(2024);
    for (let k = 0; k < 60; k++) {
      const w = 4 + Math.floor(rand() * 30);
      const h = 4 + Math.floor(rand() * 30);
      const { image } = repairLabelImage(randomLabelImage(rand, w, h, 1 + Math.floor(rand() * 12)));
      const { components } = labelEqualValueComponents(image.labels, w, h);
      const part = new Map<number, number>();
      for (let i = 0; i < w * h; i++) {
        const l = image.labels[i];
        if (l === 0) continue;
        if (!part.has(l)) part.set(l, components[i]);
        expect(components[i]).toBe(part.get(l));
      }
      expect(part.size).toBe(image.count);
      for (let l = 1; l <= image.count; l++) expect(complementReachesBorder(image, l)).toBe(true);
      const raster = repairLabelImage(randomLabelImage(prng(k), w, h, 8), 'raster');
      expect(relabelInRasterOrder(raster.image)).toBe(raster.image);
      const counted = new Float64Array(raster.image.count + 1);
      for (const l of raster.image.labels) counted[l]++;
      expect([...raster.areas]).toEqual([...counted]);
      const again = repairLabelImage(image);
      expect([...again.image.labels]).toEqual([...image.labels]);
    }
  });
});
