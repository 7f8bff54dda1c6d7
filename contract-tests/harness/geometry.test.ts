import { describe, expect, it } from 'vitest';
import { area, bounds, centroid, corners, pixelsInside, tracedPerimeter } from './geometry.js';

// An L of three pixels, (0,0), (1,0), (0,1), traced along pixel edges (y down).
const L = [
  [0, 0],
  [2, 0],
  [2, 1],
  [1, 1],
  [1, 2],
  [0, 2],
  [0, 0],
];

describe('pixel-edge geometry', () => {
  it('area, centroid and bounds follow the pixels', () => {
    expect(area(L)).toBe(3);
    // mean pixel index + 0.5: x (0 + 1 + 0) / 3 + 0.5, y the same
    expect(centroid(L).x).toBeCloseTo(1 / 3 + 0.5, 12);
    expect(centroid(L).y).toBeCloseTo(1 / 3 + 0.5, 12);
    expect(bounds(L)).toEqual({ x: 0, y: 0, w: 2, h: 2 });
    expect(pixelsInside(L, 4, 4).sort()).toEqual([0, 1, 4]);
  });

  it("takes ImageJ's traced perimeter (its own examples: 1x1 and 2x2 squares)", () => {
    expect(tracedPerimeter([0, 1, 1, 0], [0, 0, 1, 1])).toBeCloseTo(4 - 2 * (2 - Math.SQRT2), 12);
    expect(tracedPerimeter([0, 2, 2, 0], [0, 0, 2, 2])).toBeCloseTo(8 - 4 * (2 - Math.SQRT2), 12);
  });

  it('keeps only corners', () => {
    expect(corners([0, 1, 2, 2, 0, 0], [0, 0, 0, 2, 2, 0])).toEqual({ xs: [0, 2, 2, 0], ys: [0, 0, 2, 2] });
  });
});
