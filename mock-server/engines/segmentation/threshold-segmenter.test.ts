import { describe, expect, it } from 'vitest';
import type { Plane } from '../raster/plane.js';
import { prng } from '../../../test-support/segmentation/test-helpers.js';
import { expectValidResult } from '../../../test-support/segmentation/expect-valid-result.js';
import {
  segmentByThreshold,
  segmentByThresholdDetailed,
  type ThresholdParams,
} from './threshold-segmenter.js';

const params: ThresholdParams = {
  sigma: 1,
  polarity: 'bright',
  minAreaPx: 5,
  splitTouching: false,
  excludeBorderObjects: false,
};

/** 16-bit plane with bright discs (value 3000) on a dark background (200). */
function discPlane(width: number, height: number, discs: [number, number, number][], dark = false): Plane {
  const data = new Uint16Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inside = discs.some(([cx, cy, r]) => (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r);
      data[y * width + x] = inside !== dark ? 3000 : 200;
    }
  return { width, height, bitsPerSample: 16, data };
}

/** Random fluorescence-like plane: discs of random brightness, noise, some touching. */
function randomPlane(rand: () => number, width: number, height: number): Plane {
  const data = new Uint8Array(width * height);
  const discs: [number, number, number, number][] = [];
  const count = 1 + Math.floor(rand() * 8);
  for (let k = 0; k < count; k++)
    discs.push([rand() * width, rand() * height, 2 + rand() * 9, 120 + rand() * 120]);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let v = 20 + rand() * 60;
      for (const [cx, cy, r, b] of discs)
        if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r) v = Math.max(v, b + rand() * 30);
      data[y * width + x] = Math.min(255, Math.round(v));
    }
  return { width, height, bitsPerSample: 8, data };
}

describe('segmentByThreshold', () => {
  it('finds two separate discs, with ImageJ measurements', () => {
    const result = segmentByThreshold(
      discPlane(60, 40, [
        [15, 20, 8],
        [45, 20, 6],
      ]),
      params,
    );
    expect(result.objects).toHaveLength(2);
    const [a, b] = result.objects;
    expect(a.measurements.centroidX).toBeCloseTo(15, 0);
    expect(b.measurements.centroidX).toBeCloseTo(45, 0);
    expect(a.measurements.areaPx).toBeGreaterThan(b.measurements.areaPx);
  });

  it('splits two touching discs only when splitTouching is set', () => {
    const plane = discPlane(70, 40, [
      [22, 20, 11],
      [42, 20, 11],
    ]);
    expect(segmentByThreshold(plane, params).objects).toHaveLength(1);
    const split = segmentByThresholdDetailed(plane, { ...params, splitTouching: true });
    expect(split.result.objects).toHaveLength(2);
    expectValidResult(split.result, split.labels);
  });

  it("'dark' polarity finds dark cells on a bright background", () => {
    const plane = discPlane(50, 50, [[25, 25, 10]], true);
    expect(segmentByThreshold(plane, params).objects).toHaveLength(1);
    expect(segmentByThreshold(plane, { ...params, polarity: 'dark' }).objects).toHaveLength(1);
    const bright = segmentByThreshold(plane, params).objects[0].measurements.areaPx;
    expect(bright).toBeGreaterThan(2000); // the background, as one object, when the polarity is wrong
  });

  it('filters by area and border contact', () => {
    const plane = discPlane(60, 40, [
      [15, 20, 8],
      [45, 20, 3],
      [0, 0, 5],
    ]);
    // Areas: 208 (r 8), 32 (r 3) and 20 (the quarter disc in the corner).
    expect(
      segmentByThreshold(plane, { ...params, sigma: 0 }).objects.map((o) => o.measurements.areaPx),
    ).toEqual([20, 208, 32]);
    expect(segmentByThreshold(plane, { ...params, sigma: 0, minAreaPx: 25 }).objects).toHaveLength(2);
    expect(segmentByThreshold(plane, { ...params, sigma: 0, maxAreaPx: 100 }).objects).toHaveLength(2);
    expect(
      segmentByThreshold(plane, { ...params, sigma: 0, excludeBorderObjects: true }).objects,
    ).toHaveLength(2);
  });

  it('rejects mismatched data and bad parameters', () => {
    const wrong: Plane = { width: 2, height: 1, bitsPerSample: 16, data: new Uint8Array(2) };
    expect(() => segmentByThreshold(wrong, params)).toThrow(/does not match/);
    const plane = discPlane(10, 10, []);
    expect(() => segmentByThreshold(plane, { ...params, sigma: -1 })).toThrow(/sigma/);
    expect(() => segmentByThreshold(plane, { ...params, maxAreaPx: 1, minAreaPx: 2 })).toThrow(/maxAreaPx/);
  });

  it('a constant plane: no bright object; as dark, one object whose outline is the image frame', () => {
    const plane: Plane = { width: 6, height: 4, bitsPerSample: 8, data: new Uint8Array(24).fill(9) };
    expect(segmentByThreshold(plane, params).objects).toHaveLength(0);
    const dark = segmentByThreshold(plane, { ...params, polarity: 'dark', splitTouching: true });
    expect(dark.objects).toHaveLength(1);
    expect(dark.objects[0].outline).toEqual([
      [6, 4],
      [0, 4],
      [0, 0],
      [6, 0],
    ]);
    expect(
      segmentByThreshold(plane, { ...params, polarity: 'dark', excludeBorderObjects: true }).objects,
    ).toHaveLength(0);
  });

  it('stops when the signal is aborted', () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by test'));
    expect(() => segmentByThreshold(discPlane(20, 20, [[10, 10, 4]]), params, controller.signal)).toThrow(
      'cancelled by test',
    );
  });

  it('property: random planes give valid outlines agreeing with brute force, and identical repeated output', () => {
    const rand = prng(31337);
    let objects = 0;
    for (let k = 0; k < 80; k++) {
      const w = 8 + Math.floor(rand() * 56);
      const h = 8 + Math.floor(rand() * 56);
      const plane = randomPlane(rand, w, h);
      const p: ThresholdParams = {
        sigma: [0, 0.7, 1.5][k % 3],
        polarity: rand() < 0.8 ? 'bright' : 'dark',
        minAreaPx: Math.floor(rand() * 4),
        splitTouching: rand() < 0.6,
        excludeBorderObjects: rand() < 0.3,
      };
      const first = segmentByThresholdDetailed(plane, p);
      expectValidResult(first.result, first.labels);
      expect(segmentByThreshold(plane, p)).toEqual(first.result);
      objects += first.result.objects.length;
    }
    expect(objects).toBeGreaterThan(100);
  });
});
