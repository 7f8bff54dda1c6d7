/** Test-only assertion shared by the engine tests (imports vitest). */
import { expect } from 'vitest';
import { shoelaceArea, tracedPerimeterParts } from '../../mock-server/engines/geometry/measure.js';
import { findRingProblem } from '../../mock-server/engines/geometry/validate-ring.js';
import { rasterizeRing } from './test-helpers.js';
import type { LabelImage, SegmentationResult } from '../../mock-server/engines/segmentation/types.js';

/**
 * Every invariant of a result against its label image, checked by brute force: valid simple ring,
 * shoelace area = pixel count, the ring encloses exactly the object's pixels (rasterised inside the
 * bounding box), sum|dx| + sum|dy| = exposed pixel edges, centroid and bounding box from the pixels.
 */
export function expectValidResult(result: SegmentationResult, labels: LabelImage): void {
  const { width, height, count } = labels;
  expect(result.width).toBe(width);
  expect(result.height).toBe(height);
  expect(result.objects.length).toBe(count);
  const area = new Float64Array(count + 1);
  const sumX = new Float64Array(count + 1);
  const sumY = new Float64Array(count + 1);
  const minX = new Float64Array(count + 1).fill(Infinity);
  const minY = new Float64Array(count + 1).fill(Infinity);
  const maxX = new Float64Array(count + 1).fill(-1);
  const maxY = new Float64Array(count + 1).fill(-1);
  const edges = new Float64Array(count + 1);
  const at = (x: number, y: number): number =>
    x < 0 || y < 0 || x >= width || y >= height ? 0 : labels.labels[y * width + x];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const l = labels.labels[y * width + x];
      if (l === 0) continue;
      area[l]++;
      sumX[l] += x;
      sumY[l] += y;
      minX[l] = Math.min(minX[l], x);
      maxX[l] = Math.max(maxX[l], x);
      minY[l] = Math.min(minY[l], y);
      maxY[l] = Math.max(maxY[l], y);
      edges[l] +=
        +(at(x - 1, y) !== l) + +(at(x + 1, y) !== l) + +(at(x, y - 1) !== l) + +(at(x, y + 1) !== l);
    }
  result.objects.forEach((object, index) => {
    const l = index + 1;
    expect(object.label).toBe(l);
    expect(findRingProblem(object.outline)).toBeNull();
    const m = object.measurements;
    const n = area[l];
    expect(m.areaPx).toBe(n);
    expect(shoelaceArea(object.outline)).toBe(n);
    const bbox = { x: minX[l], y: minY[l], width: maxX[l] - minX[l] + 1, height: maxY[l] - minY[l] + 1 };
    expect(m.bbox).toEqual(bbox);
    // Rasterise the ring shifted into its bounding box (plus a margin) and compare with the pixels.
    const bw = bbox.width + 2;
    const bh = bbox.height + 2;
    const shifted = object.outline.map(([x, y]) => [x - bbox.x + 1, y - bbox.y + 1] as const);
    const raster = rasterizeRing(shifted, bw, bh);
    const own = new Uint8Array(bw * bh);
    for (let y = 0; y < bh; y++)
      for (let x = 0; x < bw; x++) own[y * bw + x] = at(x + bbox.x - 1, y + bbox.y - 1) === l ? 1 : 0;
    expect(raster).toEqual(own);
    const parts = tracedPerimeterParts(object.outline);
    expect(parts.sumDx + parts.sumDy).toBe(edges[l]);
    expect(m.perimeterPx).toBeCloseTo(parts.sumDx + parts.sumDy - parts.corners * (2 - Math.SQRT2), 10);
    expect(m.centroidX).toBeCloseTo(sumX[l] / n + 0.5, 10);
    expect(m.centroidY).toBeCloseTo(sumY[l] / n + 0.5, 10);
  });
}
