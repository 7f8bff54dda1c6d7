import { describe, expect, it } from 'vitest';
import { labelComponents } from '../segmentation/label.js';
import { maskFromPicture } from '../../../test-support/segmentation/test-helpers.js';
import { shoelaceArea } from './measure.js';
import { traceAllOutlines } from './trace-outline.js';
import { findRingProblem } from './validate-ring.js';

function traceMask(picture: string) {
  const { mask, width, height } = maskFromPicture(picture);
  const image = labelComponents(mask, width, height);
  return traceAllOutlines(image);
}

describe('traceAllOutlines', () => {
  it('a single pixel: four corners in ImageJ Wand order, positive shoelace', () => {
    const [ring] = traceMask('#');
    expect(ring).toEqual([
      [1, 1],
      [0, 1],
      [0, 0],
      [1, 0],
    ]);
    expect(shoelaceArea(ring)).toBe(1);
  });

  it('an L shape: vertices only at corners, starting below the end of the first run', () => {
    const [ring] = traceMask(`
      #.
      #.
      ##`);
    expect(ring).toEqual([
      [1, 2],
      [2, 2],
      [2, 3],
      [0, 3],
      [0, 0],
      [1, 0],
    ]);
    expect(shoelaceArea(ring)).toBe(4);
    expect(findRingProblem(ring)).toBeNull();
  });

  it('traces every object of an image, offsets included, in label order', () => {
    const rings = traceMask(`
      ..##.
      ..##.
      #....
      #..##`);
    expect(rings.length).toBe(3);
    expect(rings.map(shoelaceArea)).toEqual([4, 2, 2]);
    expect(rings[0]).toEqual([
      [4, 2],
      [2, 2],
      [2, 0],
      [4, 0],
    ]);
    for (const r of rings) expect(findRingProblem(r)).toBeNull();
  });

  it('a staircase (diagonal steps) stays simple', () => {
    const rings = traceMask(`
      ##...
      .##..
      ..##.
      ...##`);
    expect(rings.length).toBe(1);
    expect(findRingProblem(rings[0])).toBeNull();
    expect(shoelaceArea(rings[0])).toBe(8);
  });
});

describe('findRingProblem', () => {
  it('detects a self-touching ring (the pinch ImageJ 8-connected tracing would give)', () => {
    // Two pixels (0,0) and (1,1) traced as one outline through the shared corner (1,1).
    const pinched = [
      [1, 1],
      [0, 1],
      [0, 0],
      [1, 0],
      [1, 1],
      [2, 1],
      [2, 2],
      [1, 2],
    ] as const;
    expect(findRingProblem(pinched.map(([x, y]) => [x, y] as const))).toMatch(/touches itself/);
  });
  it('detects collinear vertices and negative orientation', () => {
    expect(
      findRingProblem([
        [0, 0],
        [1, 0],
        [2, 0],
        [2, 1],
        [0, 1],
      ]),
    ).toMatch(/collinear/);
    expect(
      findRingProblem([
        [0, 0],
        [0, 1],
        [1, 1],
        [1, 0],
      ]),
    ).toMatch(/orient/);
  });
});
