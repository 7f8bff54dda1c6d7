/**
 * Splitting of touching objects: seeded watershed on the negated distance transform.
 *
 * References: F. Meyer, "Topographic distance and watershed lines", Signal Processing 38, 1994
 * (flooding with a priority queue, as skimage.segmentation.watershed does: priority by value, then
 * by insertion order); seeds are the maxima of the distance transform whose dynamic (height above
 * the saddle where they meet a higher maximum; M. Grimaud, 1992; the h-maxima of
 * skimage.morphology.h_maxima, ImageJ's MaximumFinder "prominence") is at least MIN_DYNAMIC_PX.
 * The dynamics come from one pass over the pixels in decreasing distance with union-find
 * (0-dimensional persistence), 8-connected within each object.
 *
 * Each seed is a single pixel (the first pixel of its maximum in (distance desc, index asc) order)
 * and regions grow through 4-neighbours inside their own object, so every region is 4-connected
 * and every pixel of every object is assigned. Holes and pinch vertices a region may still have are
 * removed by repair-labels.ts. Deterministic: all priorities are integer squared distances and ties
 * go by pixel index or insertion order.
 */
import type { LabelImage } from './types.js';
import { findRoot } from './union-find.js';

/** A maximum seeds its own region only if it stands this many pixels above its saddle. */
const MIN_DYNAMIC_PX = 0.5;

/**
 * Splits the objects of a 4-connected label image. `squaredDistance` is the squared distance
 * transform of the object mask (distance-transform.ts). Regions are numbered in raster order of
 * their seed pixel.
 */
export function splitTouchingObjects(objects: LabelImage, squaredDistance: Float64Array): LabelImage {
  const { width, height, labels } = objects;
  const n = width * height;
  if (squaredDistance.length !== n) throw new Error('squaredDistance has the wrong size');
  let maxValue = 0;
  let foreground = 0;
  for (let i = 0; i < n; i++) {
    if (labels[i] === 0) continue;
    foreground++;
    if (squaredDistance[i] > maxValue) maxValue = squaredDistance[i];
  }
  // No background pixel at all: nothing to split against.
  if (foreground === 0 || !Number.isFinite(maxValue)) return objects;
  const ranked = rankByDistance(labels, squaredDistance, maxValue, foreground);
  const isSeed = persistentPeaks(objects, ranked, MIN_DYNAMIC_PX);
  const { out, count } = flood(objects, ranked, isSeed, maxValue);
  return { width, height, labels: out, count };
}

type Ranked = ReturnType<typeof rankByDistance>;

/**
 * Foreground pixels by decreasing squared distance, then increasing index (a counting sort). From
 * here on a pixel is named by its rank in that order: smaller rank = higher, older. `order` maps
 * rank to pixel, `rankOf` pixel to rank (foreground pixels only), `value` rank to squared distance.
 */
function rankByDistance(
  labels: Int32Array,
  squaredDistance: Float64Array,
  maxValue: number,
  foreground: number,
) {
  const n = labels.length;
  const buckets = new Int32Array(maxValue + 2);
  for (let i = 0; i < n; i++) if (labels[i] !== 0) buckets[maxValue - squaredDistance[i] + 1]++;
  for (let b = 1; b < buckets.length; b++) buckets[b] += buckets[b - 1];
  const order = new Int32Array(foreground);
  const rankOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (labels[i] === 0) continue;
    const r = buckets[maxValue - squaredDistance[i]]++;
    order[r] = i;
    rankOf[i] = r;
  }
  const value = new Int32Array(foreground);
  for (let r = 0; r < foreground; r++) value[r] = squaredDistance[order[r]];
  return { order, rankOf, value };
}

/**
 * The seeds: by rank, the peak of every component of each object whose persistence (its height
 * above the level where it merges into an older one) reaches `minDynamic`, and every component
 * that never merges. A component's peak is its smallest rank.
 */
function persistentPeaks(
  { width, height, labels }: LabelImage,
  { order, rankOf, value }: Ranked,
  minDynamic: number,
): Uint8Array {
  const foreground = order.length;
  const parent = new Int32Array(foreground);
  const isSeed = new Uint8Array(foreground);
  const lastRow = height - 1;
  const lastColumn = width - 1;
  for (let k = 0; k < foreground; k++) {
    const p = order[k];
    parent[k] = k;
    const label = labels[p];
    const x = p % width;
    const y = (p - x) / width;
    const level = Math.sqrt(value[k]);
    for (let dy = -1; dy <= 1; dy++) {
      if ((dy < 0 && y === 0) || (dy > 0 && y === lastRow)) continue;
      for (let dx = -1; dx <= 1; dx++) {
        if ((dx === 0 && dy === 0) || (dx < 0 && x === 0) || (dx > 0 && x === lastColumn)) continue;
        const q = p + dy * width + dx;
        if (labels[q] !== label) continue;
        const rq = rankOf[q];
        if (rq > k) continue; // not processed yet
        const a = findRoot(parent, rq);
        const b = findRoot(parent, k);
        if (a === b) continue;
        // Roots are peaks (smallest rank of their component): the larger one is younger.
        const younger = a > b ? a : b;
        const older = a > b ? b : a;
        if (Math.sqrt(value[younger]) - level >= minDynamic) isSeed[younger] = 1;
        parent[younger] = older;
      }
    }
  }
  for (let k = 0; k < foreground; k++) if (parent[k] === k) isSeed[k] = 1;
  return isSeed;
}

/**
 * Flooding from the seeds within each object: a bucket queue over squared distance, FIFO within a
 * bucket, highest bucket first. Seeds enter in raster order, and regions are numbered in that order.
 */
function flood(
  { width, labels }: LabelImage,
  { order, rankOf, value }: Ranked,
  isSeed: Uint8Array,
  maxValue: number,
): { out: Int32Array; count: number } {
  const n = labels.length;
  const lastColumn = width - 1;
  const out = new Int32Array(n);
  const head = new Int32Array(maxValue + 2).fill(-1);
  const tail = new Int32Array(maxValue + 1);
  const next = new Int32Array(order.length);
  let top = 0;
  let count = 0;
  let remaining = 0;
  const enqueue = (r: number): void => {
    const v = value[r];
    next[r] = -1;
    if (head[v] < 0) head[v] = r;
    else next[tail[v]] = r;
    tail[v] = r;
    if (v > top) top = v;
    remaining++;
  };
  for (let i = 0; i < n; i++) {
    if (labels[i] === 0 || isSeed[rankOf[i]] === 0) continue;
    out[i] = ++count;
    enqueue(rankOf[i]);
  }
  // Neighbours in a fixed order: up, left, right, down.
  const offsets = Int32Array.of(-width, -1, 1, width);
  while (remaining > 0) {
    while (head[top] < 0) top--;
    const r = head[top];
    head[top] = next[r];
    remaining--;
    const p = order[r];
    const region = out[p];
    const label = labels[p];
    const x = p % width;
    for (let k = 0; k < 4; k++) {
      if (
        (k === 0 && p < width) ||
        (k === 1 && x === 0) ||
        (k === 2 && x === lastColumn) ||
        (k === 3 && p >= n - width)
      )
        continue;
      const q = p + offsets[k];
      if (out[q] !== 0 || labels[q] !== label) continue;
      out[q] = region;
      enqueue(rankOf[q]);
    }
  }
  return { out, count };
}
