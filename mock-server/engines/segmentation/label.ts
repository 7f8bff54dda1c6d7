/**
 * Connected-component labelling, 4-connectivity, two-pass union-find.
 *
 * Reference: Rosenfeld & Pfaltz, "Sequential operations in digital picture processing", JACM 13(4),
 * 1966 (two-pass labelling), with the union-find of Wu, Otoo & Suzuki, "Optimizing two-pass
 * connected-component labeling algorithms", Pattern Anal. Appl. 12, 2009. Equivalent to
 * skimage.measure.label(mask, connectivity=1).
 *
 * Why 4-connectivity: an object's outline is traced along pixel edges and must be a simple polygon.
 * Two pixels that touch only at a corner would make the outline touch itself at that vertex; with
 * 4-connected objects and 4-connected hole filling (fill-holes.ts) no object has a hole or a pinch
 * vertex, so every outline is simple and its shoelace area equals the pixel count.
 *
 * Labels are 1..count in raster-scan order of each component's first pixel.
 */
import type { LabelImage } from './types.js';
import { doubled, numberSets, runTables, union } from './union-find.js';

/**
 * The first index in [i, end) whose mask byte is nonzero, or end. `words` views the same bytes
 * four at a time (mask at a 4-byte aligned offset): the long stretches of one class a mask has
 * are skipped a word per step instead of a byte.
 */
function nextNonzero(mask: Uint8Array, words: Uint32Array, from: number, end: number): number {
  let i = from;
  for (; i < end && (i & 3) !== 0; i++) if (mask[i] !== 0) return i;
  while (i + 4 <= end && words[i >> 2] === 0) i += 4;
  while (i < end && mask[i] === 0) i++;
  return i;
}

/** The first index in [i, end) whose mask byte is zero, or end; as nextNonzero. */
function nextZero(mask: Uint8Array, words: Uint32Array, from: number, end: number): number {
  let i = from;
  for (; i < end && (i & 3) !== 0; i++) if (mask[i] === 0) return i;
  for (; i + 4 <= end; i += 4) {
    const w = words[i >> 2];
    // Nonzero exactly when one of the four bytes is zero (the "haszero" bit trick).
    if (((w - 0x01010101) & ~w & 0x80808080) !== 0) break;
  }
  while (i < end && mask[i] !== 0) i++;
  return i;
}

/**
 * 4-connected components of the pixels whose mask value is nonzero (`foreground` true) or zero
 * (`foreground` false). Run-based: the first pass finds the runs of each row and unites runs that
 * share a column with a run of the row above; components are then numbered in run order.
 *
 * Answers `runs`, the number of runs (maximal horizontal segments: run r covers row runRow[r],
 * columns runStart[r] .. runEnd[r] - 1), and the `component` of each, 0..count-1, numbered in
 * raster order of first pixel.
 */
export function labelRuns(mask: Uint8Array, width: number, height: number, foreground: boolean) {
  if (mask.length !== width * height) throw new Error(`mask length ${mask.length} != ${width} x ${height}`);
  // The word view needs a 4-byte aligned start; a mask that is a view at another offset is copied.
  const bytes = (mask.byteOffset & 3) === 0 ? mask : mask.slice();
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
  let [runStart, runEnd, runRow, parent] = runTables(4);
  let runs = 0;
  let prevFirst = 0;
  let prevLast = 0; // runs of the previous row: [prevFirst, prevLast)
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const rowEnd = row + width;
    const first = runs;
    let p = prevFirst;
    let i = row;
    while (i < rowEnd) {
      i = foreground ? nextNonzero(bytes, words, i, rowEnd) : nextZero(bytes, words, i, rowEnd);
      if (i === rowEnd) break;
      const s = i - row;
      i = foreground ? nextZero(bytes, words, i, rowEnd) : nextNonzero(bytes, words, i, rowEnd);
      const x = i - row;
      if (runs === parent.length)
        [runStart, runEnd, runRow, parent] = doubled([runStart, runEnd, runRow, parent]);
      const r = runs++;
      runStart[r] = s;
      runEnd[r] = x;
      runRow[r] = y;
      parent[r] = r;
      // Runs above that share a column with [s, x).
      while (p < prevLast && runEnd[p] <= s) p++;
      for (let q = p; q < prevLast && runStart[q] < x; q++) union(parent, q, r);
      // A run above that reaches past x may also touch the next run of this row: keep it.
      while (p < prevLast && runEnd[p] <= x) p++;
    }
    prevFirst = first;
    prevLast = runs;
  }
  const { component, count } = numberSets(parent, runs);
  return { runs, runStart, runEnd, runRow, component, count };
}

/** Labels the 4-connected components of the nonzero pixels of a mask. */
export function labelComponents(mask: Uint8Array, width: number, height: number): LabelImage {
  return labelComponentsWithAreas(mask, width, height).image;
}

/**
 * labelComponents, plus the pixel count of each label (index 0: background) and the first pixel of
 * each label in raster order (index 0: -1; what firstPixels in trace-outline.ts finds with a pass
 * over the image), both from the runs.
 */
export function labelComponentsWithAreas(
  mask: Uint8Array,
  width: number,
  height: number,
): { image: LabelImage; areas: Float64Array; firstPixels: Int32Array } {
  const { runs, runStart, runEnd, runRow, component, count } = labelRuns(mask, width, height, true);
  const labels = new Int32Array(width * height);
  const areas = new Float64Array(count + 1);
  const firstPixels = new Int32Array(count + 1).fill(-1);
  for (let r = 0; r < runs; r++) {
    const row = runRow[r] * width;
    const l = component[r] + 1;
    // Runs come in raster order, so a label's first run holds its first pixel.
    if (firstPixels[l] < 0) firstPixels[l] = row + runStart[r];
    const from = row + runStart[r];
    const to = row + runEnd[r];
    // Most runs are short: a loop costs less than a call to fill.
    if (to - from < 32) for (let i = from; i < to; i++) labels[i] = l;
    else labels.fill(l, from, to);
    areas[l] += runEnd[r] - runStart[r];
  }
  areas[0] = width * height;
  for (let l = 1; l <= count; l++) areas[0] -= areas[l];
  return { image: { width, height, labels, count }, areas, firstPixels };
}

export type EqualValueRuns = ReturnType<typeof labelEqualValueRuns>;

/**
 * Labels the 4-connected components of equal value of an integer image by runs: every row is cut
 * into runs of equal value (background included); runs of the same value sharing a column in
 * consecutive rows are united, and runs of different values that share a pixel edge are listed as
 * adjacent. Answers the runs as labelRuns does, with their `runValue`, and `adjacentRuns`: pairs
 * (a, b) of runs of different value that share an edge, a < b (length 2 * pairs).
 */
export function labelEqualValueRuns(values: Int32Array, width: number, height: number) {
  if (values.length !== width * height)
    throw new Error(`values length ${values.length} != ${width} x ${height}`);
  let [runStart, runEnd, runRow, runValue, parent] = runTables(5);
  const adjacentRuns: number[] = [];
  let runs = 0;
  let prevFirst = 0;
  let prevLast = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const first = runs;
    let p = prevFirst;
    let x = 0;
    while (x < width) {
      const value = values[row + x];
      const s = x;
      x++;
      while (x < width && values[row + x] === value) x++;
      if (runs === parent.length)
        [runStart, runEnd, runRow, runValue, parent] = doubled([runStart, runEnd, runRow, runValue, parent]);
      const r = runs++;
      runStart[r] = s;
      runEnd[r] = x;
      runRow[r] = y;
      runValue[r] = value;
      parent[r] = r;
      if (r > first) adjacentRuns.push(r - 1, r);
      while (p < prevLast && runEnd[p] <= s) p++;
      for (let q = p; q < prevLast && runStart[q] < x; q++) {
        if (runValue[q] === value) union(parent, q, r);
        else adjacentRuns.push(q, r);
      }
      while (p < prevLast && runEnd[p] <= x) p++;
    }
    prevFirst = first;
    prevLast = runs;
  }
  const { component, count } = numberSets(parent, runs);
  return { runs, runStart, runEnd, runRow, runValue, component, count, adjacentRuns };
}
