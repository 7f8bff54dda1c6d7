import { describe, expect, it } from 'vitest';
import { labelComponents } from '../segmentation/label.js';
import { maskFromPicture, prng, randomLabelCase } from '../../../test-support/segmentation/test-helpers.js';
import { measureObjects, shoelaceArea, tracedPerimeter, tracedPerimeterParts } from './measure.js';
import { traceAllOutlines } from './trace-outline.js';
import { measureObjectsByPixels } from '../../../test-support/segmentation/measure-by-pixels.js';

const CORNER = 2 - Math.SQRT2;

function measure(picture: string) {
  const { mask, width, height } = maskFromPicture(picture);
  const image = labelComponents(mask, width, height);
  const rings = traceAllOutlines(image);
  return { rings, m: measureObjects(image, rings) };
}

describe('tracedPerimeter (ImageJ PolygonRoi.getTracedPerimeter)', () => {
  it('ImageJ documented cases: 1x1 -> 4 - 2 corners, 2x2 -> 8 - 4 corners', () => {
    const one = measure('#');
    expect(tracedPerimeterParts(one.rings[0]).corners).toBe(2);
    expect(one.m[0].perimeterPx).toBeCloseTo(4 - 2 * CORNER, 12);
    const two = measure(`
      ##
      ##`);
    expect(tracedPerimeterParts(two.rings[0]).corners).toBe(4);
    expect(two.m[0].perimeterPx).toBeCloseTo(8 - 4 * CORNER, 12);
  });

  it('L shape: 10 boundary edges and 4 corners (hand-traced through the ImageJ loop)', () => {
    const { rings, m } = measure(`
      #.
      #.
      ##`);
    expect(tracedPerimeterParts(rings[0])).toEqual({ sumDx: 4, sumDy: 6, corners: 4 });
    expect(m[0].perimeterPx).toBeCloseTo(10 - 4 * CORNER, 12);
  });

  it('depends on the start vertex, as ImageJ warns', () => {
    // A 3x1 bar: rotating the ring start changes ImageJ's corner count.
    const ring = [
      [3, 1],
      [0, 1],
      [0, 0],
      [3, 0],
    ] as const;
    const rotated = [ring[1], ring[2], ring[3], ring[0]];
    expect(tracedPerimeterParts(ring.slice()).corners).not.toBe(tracedPerimeterParts(rotated).corners);
    expect(tracedPerimeter([[0, 0]])).toBe(0);
  });
});

describe('measureObjects', () => {
  it('area, centroid (mean pixel index + 0.5) and ImageJ bounding box', () => {
    const { rings, m } = measure(`
      .....
      .#...
      .#...
      .##..`);
    expect(m).toHaveLength(1);
    expect(m[0].areaPx).toBe(4);
    expect(shoelaceArea(rings[0])).toBe(4);
    expect(m[0].centroidX).toBeCloseTo((1 + 1 + 1 + 2) / 4 + 0.5, 12);
    expect(m[0].centroidY).toBeCloseTo((1 + 2 + 3 + 3) / 4 + 0.5, 12);
    expect(m[0].bbox).toEqual({ x: 1, y: 1, width: 2, height: 3 });
  });

  it('shoelaceArea is signed', () => {
    expect(
      shoelaceArea([
        [0, 0],
        [0, 2],
        [3, 2],
        [3, 0],
      ]),
    ).toBe(-6);
  });

  it('gives exactly the figures of the pass over the pixels (random label images)', () => {
    const rand = prng(7);
    let objects = 0;
    for (let k = 0; k < 60; k++) {
      const image = randomLabelCase(rand, k);
      const { width: w, height: h } = image;
      const rings = traceAllOutlines(image);
      expect(measureObjects(image, rings), `case ${k}, ${w} x ${h}`).toEqual(
        measureObjectsByPixels(image, rings),
      );
      objects += image.count;
    }
    expect(objects).toBeGreaterThan(200);
  });
});
