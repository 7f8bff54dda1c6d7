/** Test-only assertion shared by the engine tests (imports vitest). */
import { expect } from 'vitest';
import { shoelaceArea, tracedPerimeterParts } from '../../mock-server/engines/geometry/measure.js';
import { findRingProblem } from './validate-ring.js';
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
  // Each object's disagreements, collected in plain loops and asserted once: an expect() per
  // value of thousands of objects cost seconds of the run, and the list names every object wrong.
  const problems: string[] = [];
  const differ = (l: number, what: string, got: unknown, want: unknown) =>
    problems.push(`object ${l}: ${what} ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  const close = (a: number, b: number) => Math.abs(a - b) < 5e-11;
  result.objects.forEach((object, index) => {
    const l = index + 1;
    if (object.label !== l) differ(l, 'label', object.label, l);
    const ringProblem = findRingProblem(object.outline);
    if (ringProblem !== null) differ(l, 'ring', ringProblem, null);
    const m = object.measurements;
    const n = area[l];
    if (m.areaPx !== n) differ(l, 'areaPx', m.areaPx, n);
    if (shoelaceArea(object.outline) !== n) differ(l, 'shoelace area', shoelaceArea(object.outline), n);
    const bbox = { x: minX[l], y: minY[l], width: maxX[l] - minX[l] + 1, height: maxY[l] - minY[l] + 1 };
    if (
      Object.keys(m.bbox).sort().join() !== 'height,width,x,y' ||
      m.bbox.x !== bbox.x ||
      m.bbox.y !== bbox.y ||
      m.bbox.width !== bbox.width ||
      m.bbox.height !== bbox.height
    )
      differ(l, 'bbox', m.bbox, bbox);
    // Rasterise the ring shifted into its bounding box (plus a margin) and compare with the pixels.
    const bw = bbox.width + 2;
    const bh = bbox.height + 2;
    const shifted = object.outline.map(([x, y]) => [x - bbox.x + 1, y - bbox.y + 1] as const);
    const raster = rasterizeRing(shifted, bw, bh);
    let wrongPixels = 0;
    for (let y = 0; y < bh; y++)
      for (let x = 0; x < bw; x++)
        if (raster[y * bw + x] !== (at(x + bbox.x - 1, y + bbox.y - 1) === l ? 1 : 0)) wrongPixels++;
    if (raster.length !== bw * bh || wrongPixels > 0)
      differ(l, 'pixels enclosed by the ring but not its own, or its own outside', wrongPixels, 0);
    const parts = tracedPerimeterParts(object.outline);
    if (parts.sumDx + parts.sumDy !== edges[l])
      differ(l, 'sum|dx| + sum|dy|', parts.sumDx + parts.sumDy, edges[l]);
    const perimeter = parts.sumDx + parts.sumDy - parts.corners * (2 - Math.SQRT2);
    if (!close(m.perimeterPx, perimeter)) differ(l, 'perimeterPx', m.perimeterPx, perimeter);
    if (!close(m.centroidX, sumX[l] / n + 0.5)) differ(l, 'centroidX', m.centroidX, sumX[l] / n + 0.5);
    if (!close(m.centroidY, sumY[l] / n + 0.5)) differ(l, 'centroidY', m.centroidY, sumY[l] / n + 0.5);
  });
  expect(problems.slice(0, 20), `${problems.length} disagreements, the first 20`).toEqual([]);
}
