/**
 * Helpers for the engine tests only: a seeded PRNG, random masks and label images, and
 * brute-force references (ring rasterisation, per-label hole check, boundary edge count).
 */
import type { Ring } from '../../mock-server/engines/geometry/types.js';
import type { LabelImage } from '../../mock-server/engines/segmentation/types.js';
import { fillHoles } from '../../mock-server/engines/segmentation/fill-holes.js';
import { labelComponents } from '../../mock-server/engines/segmentation/label.js';
import { repairLabelImage } from '../../mock-server/engines/segmentation/repair-labels.js';
import { mulberry32 } from '../../fixtures/generator/prng.js';

/** The fixture generator's mulberry32, as floats in [0, 1). */
export function prng(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}

/** Mask from a string picture: '#' or 'X' = 1, anything else 0; rows separated by newlines. */
export function maskFromPicture(picture: string): { mask: Uint8Array; width: number; height: number } {
  const rows = picture
    .split('\n')
    .map((r) => r.trim())
    .filter((r) => r.length > 0);
  const width = rows[0].length;
  const height = rows.length;
  const mask = new Uint8Array(width * height);
  rows.forEach((r, y) => {
    if (r.length !== width) throw new Error('ragged picture');
    for (let x = 0; x < width; x++) mask[y * width + x] = r[x] === '#' || r[x] === 'X' ? 1 : 0;
  });
  return { mask, width, height };
}

/** Random binary mask: noise of density p, optionally with a few filled discs. */
export function randomMask(
  rand: () => number,
  width: number,
  height: number,
  p: number,
  discs = 0,
): Uint8Array {
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = rand() < p ? 1 : 0;
  for (let k = 0; k < discs; k++) {
    const cx = rand() * width;
    const cy = rand() * height;
    const r = 1 + rand() * Math.min(width, height) * 0.3;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++)
        if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 < r * r) mask[y * width + x] = 1;
  }
  return mask;
}

/** Random label image: overlapping random rectangles and discs with random labels, plus noise. */
export function randomLabelImage(
  rand: () => number,
  width: number,
  height: number,
  shapes: number,
): LabelImage {
  const labels = new Int32Array(width * height);
  const maxLabel = Math.max(1, Math.floor(shapes * 0.7));
  for (let k = 0; k < shapes; k++) {
    const label = 1 + Math.floor(rand() * maxLabel);
    const cx = rand() * width;
    const cy = rand() * height;
    const r = 1 + rand() * Math.min(width, height) * 0.25;
    const ring = rand() < 0.3;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const d2 = (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2;
        if (d2 < r * r && (!ring || d2 > (r * 0.5) ** 2)) labels[y * width + x] = label;
      }
  }
  for (let i = 0; i < labels.length; i++) if (rand() < 0.05) labels[i] = Math.floor(rand() * (maxLabel + 1));
  return { width, height, labels, count: maxLabel };
}

/**
 * The `k`-th of a run of random test cases up to 40 x 40: touching labels of every shape
 * (repaired, even k), or 4-connected components of filled noise (odd k).
 */
export function randomLabelCase(rand: () => number, k: number): LabelImage {
  const w = 1 + Math.floor(rand() * 40);
  const h = 1 + Math.floor(rand() * 40);
  return k % 2 === 0
    ? repairLabelImage(randomLabelImage(rand, w, h, 1 + Math.floor(rand() * 12))).image
    : labelComponents(fillHoles(randomMask(rand, w, h, 0.2 + rand() * 0.5, 2), w, h), w, h);
}

/** Pixels whose centre lies inside the ring (even-odd rule over its vertical edges). */
export function rasterizeRing(ring: Ring, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const n = ring.length;
  for (let y = 0; y < height; y++) {
    const yc = y + 0.5;
    const xs: number[] = [];
    for (let i = 0; i < n; i++) {
      const [x1, y1] = ring[i];
      const [x2, y2] = ring[(i + 1) % n];
      if (x1 !== x2) continue;
      if (Math.min(y1, y2) < yc && yc < Math.max(y1, y2)) xs.push(x1);
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) for (let x = xs[k]; x < xs[k + 1]; x++) out[y * width + x] = 1;
  }
  return out;
}

/** True if every 4-connected component of the complement of `label` reaches the border. */
export function complementReachesBorder(image: LabelImage, label: number): boolean {
  const { width, height, labels } = image;
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if ((x === 0 || y === 0 || x === width - 1 || y === height - 1) && labels[y * width + x] !== label) {
        seen[y * width + x] = 1;
        stack.push(y * width + x);
      }
  while (stack.length > 0) {
    const i = stack.pop()!;
    const x = i % width;
    const y = (i - x) / width;
    for (const [nx, ny] of [
      [x - 1, y],
      [x + 1, y],
      [x, y - 1],
      [x, y + 1],
    ]) {
      if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
      const j = ny * width + nx;
      if (!seen[j] && labels[j] !== label) {
        seen[j] = 1;
        stack.push(j);
      }
    }
  }
  for (let i = 0; i < labels.length; i++) if (labels[i] !== label && !seen[i]) return false;
  return true;
}
