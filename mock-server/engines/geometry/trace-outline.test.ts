import { describe, expect, it } from 'vitest';
import { labelComponents } from '../segmentation/label.js';
import type { LabelImage } from '../segmentation/types.js';
import { maskFromPicture, prng, randomLabelCase } from '../../../test-support/segmentation/test-helpers.js';
import { shoelaceArea } from './measure.js';
import { firstPixels, traceAllOutlines } from './trace-outline.js';
import type { Point, Ring } from './types.js';
import { findRingProblem } from '../../../test-support/segmentation/validate-ring.js';

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

/**
 * ImageJ's Wand.traceEdge transcribed step for step (the first version of trace-outline.ts): the
 * reference the index-arithmetic walk must match vertex for vertex.
 */
function wandReference(image: LabelImage, label: number, start: number): Ring {
  const { width, height, labels } = image;
  const inside = (x: number, y: number): boolean =>
    x >= 0 && x < width && y >= 0 && y < height && labels[y * width + x] === label;
  const insideDir = (x: number, y: number, d: number): boolean => {
    switch (d & 3) {
      case 0:
        return inside(x, y);
      case 1:
        return inside(x, y - 1);
      case 2:
        return inside(x - 1, y - 1);
      default:
        return inside(x - 1, y);
    }
  };
  const y0 = Math.floor(start / width);
  let startX = start - y0 * width;
  while (inside(startX, y0)) startX++;
  const startY = y0 + 1;
  const ring: Point[] = [];
  let x = startX;
  let y = startY;
  let direction = 3;
  do {
    let newDirection = direction;
    do {
      if (!insideDir(x, y, newDirection)) break;
      newDirection++;
    } while (newDirection < direction + 2);
    newDirection--;
    if (newDirection !== direction) ring.push([x, y]);
    const d = newDirection & 3;
    if (d === 0) x++;
    else if (d === 1) y--;
    else if (d === 2) x--;
    else y++;
    direction = newDirection;
  } while (x !== startX || y !== startY || (direction & 3) !== 3);
  if (ring[0][0] !== x) ring.push([x, y]);
  return ring;
}

describe('traceAllOutlines against the transcribed Wand', () => {
  it('gives the same vertices, start included, on random label images', () => {
    const rand = prng(11);
    let objects = 0;
    for (let k = 0; k < 60; k++) {
      const image = randomLabelCase(rand, k);
      const { width: w, height: h } = image;
      const first = firstPixels(image);
      const expected = Array.from({ length: image.count }, (_, i) =>
        wandReference(image, i + 1, first[i + 1]),
      );
      expect(traceAllOutlines(image), `case ${k}, ${w} x ${h}`).toEqual(expected);
      objects += image.count;
    }
    expect(objects).toBeGreaterThan(200);
  });

  it('refuses first pixels that do not match the label count', () => {
    const image = labelComponents(Uint8Array.of(1, 0, 1), 3, 1);
    expect(() => traceAllOutlines(image, Int32Array.of(-1, 0))).toThrow(/first pixels/);
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
