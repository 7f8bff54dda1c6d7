import { describe, expect, it } from 'vitest';
import { squaredDistanceTransform } from './distance-transform.js';
import { labelComponents } from './label.js';
import { labelEqualValueComponents } from '../../../test-support/segmentation/equal-value-components.js';
import { splitTouchingObjects } from './watershed.js';

function discs(width: number, height: number, list: [number, number, number][]): Uint8Array {
  const mask = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (const [cx, cy, r] of list)
        if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r) mask[y * width + x] = 1;
  return mask;
}

function split(mask: Uint8Array, width: number, height: number) {
  const objects = labelComponents(mask, width, height);
  return { objects, regions: splitTouchingObjects(objects, squaredDistanceTransform(mask, width, height)) };
}

describe('splitTouchingObjects', () => {
  it('splits two touching discs into two regions along the neck', () => {
    const mask = discs(60, 40, [
      [20, 20, 10],
      [38, 20, 10],
    ]);
    const { objects, regions } = split(mask, 60, 40);
    expect(objects.count).toBe(1);
    expect(regions.count).toBe(2);
    const left = regions.labels[20 * 60 + 15];
    const right = regions.labels[20 * 60 + 43];
    expect(left).not.toBe(right);
    // The cut is at the neck, x = 29 in pixel centres.
    for (let y = 0; y < 40; y++) {
      for (let x = 0; x < 60; x++) {
        const l = regions.labels[y * 60 + x];
        if (!mask[y * 60 + x]) expect(l).toBe(0);
        else if (x < 28) expect(l).toBe(left);
        else if (x > 30) expect(l).toBe(right);
      }
    }
  });

  it('keeps one round cell (and a slightly irregular one) as one region', () => {
    const mask = discs(50, 50, [[25, 25, 15]]);
    expect(split(mask, 50, 50).regions.count).toBe(1);
    mask[25 * 50 + 10] = 0;
    mask[10 * 50 + 25] = 0;
    mask[39 * 50 + 25] = 0;
    expect(split(mask, 50, 50).regions.count).toBe(1);
  });

  it('gives every object at least one region, every pixel a label, each region 4-connected', () => {
    const mask = discs(80, 60, [
      [15, 15, 8],
      [27, 15, 8],
      [60, 40, 12],
      [45, 45, 6],
      [70, 10, 3],
    ]);
    const { regions } = split(mask, 80, 60);
    expect(regions.count).toBeGreaterThanOrEqual(4);
    for (let i = 0; i < mask.length; i++) expect(regions.labels[i] > 0).toBe(mask[i] === 1);
    const { components, count } = labelEqualValueComponents(regions.labels, 80, 60);
    const foregroundComponents = new Set<number>();
    for (let i = 0; i < mask.length; i++) if (mask[i]) foregroundComponents.add(components[i]);
    expect(foregroundComponents.size).toBe(regions.count);
    expect(count).toBeGreaterThan(regions.count);
  });

  it('is deterministic', () => {
    const mask = discs(64, 64, [
      [20, 20, 9],
      [36, 22, 9],
      [28, 36, 9],
    ]);
    const a = split(mask, 64, 64).regions;
    const b = split(mask, 64, 64).regions;
    expect(a.count).toBe(3);
    expect([...a.labels]).toEqual([...b.labels]);
  });
});
