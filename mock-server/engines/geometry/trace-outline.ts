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

/**
 * Traces the outline of label `label` starting from its first pixel `start` (raster order).
 *
 * The walk visits every boundary edge, so it is the inner loop of tracing: the pixel seen from a
 * vertex in a direction is found with index arithmetic and one unsigned bounds test, and the
 * vertices go straight into the ring, without per-step closures or coordinate lists.
 */
export function traceOutline(image: LabelImage, label: number, start: number): Ring {
  const { width, height, labels } = image;
  const y0 = Math.floor(start / width);
  const row = y0 * width;
  let startX = start - row;
  while (startX < width && labels[row + startX] === label) startX++;
  // The border lies between (startX - 1, y0) inside and (startX, y0) outside: walk down (direction 3).
  const startY = y0 + 1;
  const startDirection = 3;
  const ring: Point[] = [];
  let x = startX;
  let y = startY;
  let direction = startDirection;
  const maxSteps = 4 * width * height + 4;
  let steps = 0;
  do {
    // Turn left as long as the pixel ahead-left is inside, at most twice (ImageJ's Wand): the pixel
    // seen from vertex (x, y) in direction d is (x, y), (x, y-1), (x-1, y-1), (x-1, y) for d = 0..3.
    let newDirection = direction;
    do {
      const d = newDirection & 3;
      const px = x - ((d >> 1) & 1);
      const py = y - (((d + 1) >> 1) & 1);
      if (px >>> 0 >= width || py >>> 0 >= height || labels[py * width + px] !== label) break;
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
    if (++steps > maxSteps) throw new Error(`traceOutline: label ${label} did not close`);
  } while (x !== startX || y !== startY || (direction & 3) !== startDirection);
  if (ring.length === 0 || ring[0][0] !== x) ring.push([x, y]);
  return ring;
}

/**
 * Outlines of labels 1..count, in label order (index label - 1). `first`, when the caller has it
 * (labelComponentsWithAreas), is firstPixels(image): it saves a pass over the label image.
 */
export function traceAllOutlines(image: LabelImage, first: Int32Array = firstPixels(image)): Ring[] {
  if (first.length !== image.count + 1)
    throw new Error('traceAllOutlines: first pixels do not match the labels');
  const rings: Ring[] = new Array(image.count);
  for (let l = 1; l <= image.count; l++) {
    if (first[l] < 0) throw new Error(`traceAllOutlines: label ${l} has no pixels`);
    rings[l - 1] = traceOutline(image, l, first[l]);
  }
  return rings;
}
