/**
 * Object measurements with ImageJ's definitions (DESIGN.md, "Geometry and measurement conventions").
 *
 * References: ImageJ ij/gui/PolygonRoi.java getTracedPerimeter (perimeter of a traced ROI:
 * sum|dx| + sum|dy| - corners * (2 - sqrt 2), where "corners" is counted by ImageJ's own loop, which
 * depends on the start vertex); ij/process/ImageStatistics (area = pixel count, centroid = mean of
 * pixel centres, i.e. mean pixel index + 0.5; bounding rectangle BX, BY, Width, Height); the
 * shoelace formula for polygon area.
 */
import type { LabelImage } from '../segmentation/types.js';
import type { Measurements, Ring } from './types.js';

/** Signed shoelace area, sum(x_i * y_(i+1) - x_(i+1) * y_i) / 2; positive for our ring orientation. */
export function shoelaceArea(ring: Ring): number {
  const n = ring.length;
  let twice = 0;
  for (let i = 0; i < n; i++) {
    const a = ring[i];
    const b = ring[i + 1 === n ? 0 : i + 1];
    twice += a[0] * b[1] - b[0] * a[1];
  }
  return twice / 2;
}

/** ImageJ's corner count and edge sums of getTracedPerimeter, transcribed loop for loop. */
export function tracedPerimeterParts(ring: Ring): { sumDx: number; sumDy: number; corners: number } {
  const n = ring.length;
  if (n < 4) return { sumDx: 0, sumDy: 0, corners: 0 };
  let sumDx = 0;
  let sumDy = 0;
  let corners = 0;
  let dx1 = ring[0][0] - ring[n - 1][0];
  let dy1 = ring[0][1] - ring[n - 1][1];
  let side1 = Math.abs(dx1) + Math.abs(dy1);
  let corner = false;
  for (let i = 0; i < n; i++) {
    const next = i + 1 === n ? 0 : i + 1;
    const dx2 = ring[next][0] - ring[i][0];
    const dy2 = ring[next][1] - ring[i][1];
    sumDx += Math.abs(dx1);
    sumDy += Math.abs(dy1);
    const side2 = Math.abs(dx2) + Math.abs(dy2);
    if (side1 > 1 || !corner) {
      corner = true;
      corners++;
    } else {
      corner = false;
    }
    dx1 = dx2;
    dy1 = dy2;
    side1 = side2;
  }
  return { sumDx, sumDy, corners };
}

/** ImageJ's traced perimeter in pixels (uncalibrated). */
export function tracedPerimeter(ring: Ring): number {
  const { sumDx, sumDy, corners } = tracedPerimeterParts(ring);
  return sumDx + sumDy - corners * (2 - Math.SQRT2);
}

/**
 * Measurements of labels 1..count (index label - 1) from their outlines alone, without a pass
 * over the label image: the outline encloses exactly the object's pixels (the precondition of
 * trace-outline.ts), so area and pixel-coordinate sums follow from Green's theorem on its
 * axis-parallel edges, and the bounding box from its vertices. All sums are integers held exactly
 * in float64, so the figures are the same bytes as a pass over the pixels gives (tested against
 * test-support/segmentation/measure-by-pixels.ts).
 *
 * A vertical edge at x from y1 to y2 (dy = y2 - y1) bounds the pixels of columns 0..x-1 in those
 * rows: it adds x * dy to the area and (0 + 1 + ... + x-1) * dy to the x sum; a horizontal edge
 * at y likewise subtracts (0 + ... + y-1) * dx from the y sum. With the ring's orientation
 * (positive shoelace sum) the edges outside the object cancel.
 */
export function measureObjects(image: LabelImage, outlines: readonly Ring[]): Measurements[] {
  const { count } = image;
  if (outlines.length !== count)
    throw new Error(`measureObjects: ${outlines.length} outlines for ${count} labels`);
  const result: Measurements[] = new Array(count);
  for (let l = 1; l <= count; l++) {
    const ring = outlines[l - 1];
    const n = ring.length;
    let area = 0;
    let sumX = 0;
    let sumY = 0;
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    let [ax, ay] = ring[n - 1];
    for (let i = 0; i < n; i++) {
      const [bx, by] = ring[i];
      const dy = by - ay;
      const dx = bx - ax;
      area += ax * dy;
      sumX += ((ax * (ax - 1)) / 2) * dy;
      sumY -= ((ay * (ay - 1)) / 2) * dx;
      if (bx < minX) minX = bx;
      if (bx > maxX) maxX = bx;
      if (by < minY) minY = by;
      if (by > maxY) maxY = by;
      ax = bx;
      ay = by;
    }
    result[l - 1] = {
      areaPx: area,
      perimeterPx: tracedPerimeter(ring),
      centroidX: sumX / area + 0.5,
      centroidY: sumY / area + 0.5,
      bbox: { x: minX, y: minY, width: maxX - minX, height: maxY - minY },
    };
  }
  return result;
}
