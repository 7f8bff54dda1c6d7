/**
 * Outline tracing along pixel edges: ImageJ's Wand, "traced" ROI.
 *
 * Reference: ImageJ ij/gui/Wand.java (traceEdge, 4-connected mode, version 2009-06-01) as the
 * particle analyzer calls it: start at the object's first pixel in raster order, move right to
 * the end of its run, and walk the boundary with the outside on the left, adding a vertex only
 * where the direction changes. The vertex sequence (start vertex included) is the one ImageJ
 * produces, which matters because ImageJ's traced perimeter depends on where the ring starts
 * (measure.ts). Coordinates are pixel corners; the ring has a positive shoelace sum on raw y-down
 * coordinates.
 *
 * Precondition: the label image satisfies the invariant of repair-labels.ts (each object
 * 4-connected, without holes or pinch vertices); then each ring is simple and encloses exactly the
 * object's pixels. All objects are traced in O(pixels + total outline length).
 */
import type { LabelImage } from '../segmentation/types.js';
import type { Point, Ring } from './types.js';

/** First pixel index of each label in raster order (index 0 unused; -1 if the label is absent). */
export function firstPixels(image: LabelImage): Int32Array {
  const { labels, count } = image;
  const first = new Int32Array(count + 1).fill(-1);
  let remaining = count;
  for (let i = 0; i < labels.length && remaining > 0; i++) {
    const l = labels[i];
    if (l > 0 && first[l] < 0) {
      first[l] = i;
      remaining--;
    }
  }
  return first;
}

/** Traces the outline of label `label` starting from its first pixel `start` (raster order). */
export function traceOutline(image: LabelImage, label: number, start: number): Ring {
  const { width, height, labels } = image;
  const inside = (x: number, y: number): boolean =>
    x >= 0 && x < width && y >= 0 && y < height && labels[y * width + x] === label;
  // Pixel seen from vertex (x, y) in direction d: 0 -> (x, y), 1 -> (x, y-1), 2 -> (x-1, y-1), 3 -> (x-1, y).
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
  // The border lies between (startX - 1, y0) inside and (startX, y0) outside: walk down (direction 3).
  const startY = y0 + 1;
  const startDirection = 3;
  const xs: number[] = [];
  const ys: number[] = [];
  let x = startX;
  let y = startY;
  let direction = startDirection;
  const maxSteps = 4 * width * height + 4;
  let steps = 0;
  do {
    let newDirection = direction;
    do {
      if (!insideDir(x, y, newDirection)) break;
      newDirection++;
    } while (newDirection < direction + 2);
    newDirection--;
    if (newDirection !== direction) {
      xs.push(x);
      ys.push(y);
    }
    switch (newDirection & 3) {
      case 0:
        x++;
        break;
      case 1:
        y--;
        break;
      case 2:
        x--;
        break;
      default:
        y++;
    }
    direction = newDirection;
    if (++steps > maxSteps) throw new Error(`traceOutline: label ${label} did not close`);
  } while (x !== startX || y !== startY || (direction & 3) !== startDirection);
  if (xs[0] !== x) {
    xs.push(x);
    ys.push(y);
  }
  const ring: Point[] = new Array(xs.length);
  for (let k = 0; k < xs.length; k++) ring[k] = [xs[k], ys[k]];
  return ring;
}

/** Outlines of labels 1..count, in label order (index label - 1). */
export function traceAllOutlines(image: LabelImage): Ring[] {
  const first = firstPixels(image);
  const rings: Ring[] = new Array(image.count);
  for (let l = 1; l <= image.count; l++) {
    if (first[l] < 0) throw new Error(`traceAllOutlines: label ${l} has no pixels`);
    rings[l - 1] = traceOutline(image, l, first[l]);
  }
  return rings;
}
