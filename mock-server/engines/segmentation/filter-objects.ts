/**
 * Object filtering by area and border contact, with relabelling.
 *
 * Reference: skimage.morphology.remove_small_objects and skimage.segmentation.clear_border, applied
 * to a label image; ImageJ's Analyze Particles "size" and "exclude on edges" options.
 * Kept objects are renumbered 1..n without gaps, in raster order of their first pixel (the input
 * itself is returned when nothing changes). Removing an
 * object never creates a hole in another one: whether a pixel set is enclosed by an object depends
 * only on that object's own pixels.
 */
import type { LabelImage } from './types.js';

export interface ObjectFilter {
  /** Objects with fewer pixels are removed. */
  readonly minAreaPx: number;
  /** Objects with more pixels are removed. */
  readonly maxAreaPx?: number;
  /** Remove objects with a pixel on the first or last row or column. */
  readonly excludeBorderObjects?: boolean;
}

/**
 * `rasterOrderedAreas`, when the caller has them (labelComponentsWithAreas), are the pixel counts
 * by label of an image already numbered in raster order; they save a pass over the image.
 */
export function filterObjects(
  image: LabelImage,
  filter: ObjectFilter,
  rasterOrderedAreas?: Float64Array,
): LabelImage {
  const { width, labels, count } = image;
  const n = labels.length;
  if (rasterOrderedAreas && rasterOrderedAreas.length !== count + 1)
    throw new Error('filterObjects: areas do not match the label count');
  let area = rasterOrderedAreas;
  if (!area) {
    area = new Float64Array(count + 1);
    for (let i = 0; i < n; i++) area[labels[i]]++;
  }
  const drop = new Uint8Array(count + 1);
  drop[0] = 1;
  const maxArea = filter.maxAreaPx ?? Infinity;
  for (let l = 1; l <= count; l++) if (area[l] < filter.minAreaPx || area[l] > maxArea) drop[l] = 1;
  if (filter.excludeBorderObjects) {
    for (let x = 0; x < width; x++) {
      drop[labels[x]] = 1;
      drop[labels[n - width + x]] = 1;
    }
    for (let row = 0; row < n; row += width) {
      drop[labels[row]] = 1;
      drop[labels[row + width - 1]] = 1;
    }
  }
  // Areas in raster order come from an image numbered in raster order: nothing to renumber.
  if (!drop.includes(1, 1) && rasterOrderedAreas) return image;
  return relabelInRasterOrder(image, drop);
}

/**
 * Renumbers the labels not marked in `drop` 1..n in raster order of first pixel; dropped become 0.
 * Returns the input itself when nothing changes.
 */
export function relabelInRasterOrder(image: LabelImage, drop?: Uint8Array): LabelImage {
  const { width, height, labels, count } = image;
  const n = width * height;
  const map = new Int32Array(count + 1).fill(-1);
  map[0] = 0;
  let identity = true;
  if (drop) {
    for (let l = 1; l <= count; l++) {
      if (drop[l]) {
        map[l] = 0;
        identity = false;
      }
    }
  }
  let next = 0;
  for (let i = 0; i < n; i++) {
    const l = labels[i];
    if (map[l] < 0) {
      map[l] = ++next;
      if (next !== l) identity = false;
    }
  }
  if (identity && next === count) return image;
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = map[labels[i]];
  return { width, height, labels: out, count: next };
}
