/**
 * Repair of an arbitrary label image so that every object outline is a valid traced polygon.
 *
 * The invariant (DESIGN.md, "Geometry and measurement conventions"): each object is 4-connected,
 * has no hole and no pinch vertex, so its pixel-edge outline is one simple ring whose shoelace area
 * equals its pixel count. An object has neither holes nor pinches exactly when every 4-connected
 * component of its complement reaches the image border (a pinch vertex always encloses one of the
 * two other pixels at that vertex).
 *
 * Algorithm, O(pixels):
 * 1. 4-connected components of equal value (background included), run-based labelling in label.ts.
 * 2. Each label keeps its largest component (ties: first in raster order); its other components
 *    become background.
 * 3. Region adjacency graph of the components plus a virtual "outside" vertex joined to every
 *    component on the border. A component C is enclosed by object A exactly when A is an
 *    articulation vertex separating C from outside; one iterative depth-first search computes
 *    discovery times and low-links (J. Hopcroft and R. Tarjan, "Algorithm 447: efficient algorithms
 *    for graph manipulation", CACM 16(6), 1973). Every enclosed component, background or another
 *    object, is given to its outermost enclosing object (hole filling per label, the equivalent of
 *    scipy.ndimage.binary_fill_holes applied to each label with 4-connectivity).
 * 4. Surviving labels are renumbered 1..n keeping their relative order (or in raster order of first
 *    pixel, on request); their pixel counts come with the result.
 * Values <= 0 are background. The result satisfies the invariant, and repairing it again is a no-op.
 */
import { labelEqualValueRuns, type EqualValueRuns } from './label.js';
import type { LabelImage } from './types.js';

/**
 * `order` numbers the surviving labels: 'label' keeps their relative order; 'raster' numbers them
 * in raster order of their first pixel, as label.ts does.
 */
export function repairLabelImage(
  image: LabelImage,
  order: 'label' | 'raster' = 'label',
): { image: LabelImage; areas: Float64Array } {
  const { width, height, labels } = image;
  if (labels.length !== width * height)
    throw new Error(`labels length ${labels.length} != ${width} x ${height}`);
  const values = withoutNegatives(labels);
  // Step 1.
  const runs = labelEqualValueRuns(values, width, height);
  const components = describeComponents(runs, width, height);
  // Step 2.
  const isObject = largestComponentOfEachLabel(components);
  // Step 3.
  const graph = adjacencyGraph(runs, components);
  const enclosing = outermostEnclosingObjects(graph, isObject);
  // Step 4.
  const finalValue = new Int32Array(components.count);
  for (let c = 0; c < components.count; c++) {
    const e = enclosing[c];
    finalValue[c] = e >= 0 ? components.value[e] : isObject[c] ? components.value[c] : 0;
  }
  const renumber = renumbering(finalValue, order);
  const painted = paint(runs, components, finalValue, renumber, width, height);
  return {
    image: { width, height, labels: painted.labels, count: renumber.size },
    /** Pixel count by new label (index 0: background). */
    areas: painted.areas,
  };
}

/** The labels with every value below 0 made background (the same array when there is none). */
function withoutNegatives(labels: Int32Array): Int32Array {
  for (let i = 0; i < labels.length; i++) {
    if (labels[i] < 0) return labels.map((l) => (l > 0 ? l : 0));
  }
  return labels;
}

type Components = ReturnType<typeof describeComponents>;

/** Per component (numbered in raster order of first pixel): its value, its size, whether it touches the border. */
function describeComponents(runs: EqualValueRuns, width: number, height: number) {
  const { runStart, runEnd, runRow, runValue, component, count } = runs;
  const value = new Int32Array(count);
  const size = new Float64Array(count);
  const onBorder = new Uint8Array(count);
  for (let r = 0; r < runs.runs; r++) {
    const c = component[r];
    value[c] = runValue[r];
    size[c] += runEnd[r] - runStart[r];
    if (runRow[r] === 0 || runRow[r] === height - 1 || runStart[r] === 0 || runEnd[r] === width)
      onBorder[c] = 1;
  }
  return { count, value, size, onBorder };
}

/** 1 for the component each label keeps: its largest (ties: first in raster order). */
function largestComponentOfEachLabel({ count, value, size }: Components): Uint8Array {
  const best = new Map<number, number>();
  for (let c = 0; c < count; c++) {
    if (value[c] === 0) continue;
    const b = best.get(value[c]);
    if (b === undefined || size[c] > size[b]) best.set(value[c], c);
  }
  const isObject = new Uint8Array(count);
  for (const c of best.values()) isObject[c] = 1;
  return isObject;
}

/**
 * Neighbours of each component, and of vertex `count` (outside): every component on the border.
 * A vertex's neighbours are listed in the order its edges are found.
 */
function adjacencyGraph(runs: EqualValueRuns, { count, onBorder }: Components): number[][] {
  const { component, adjacentRuns } = runs;
  const neighbours: number[][] = Array.from({ length: count + 1 }, () => []);
  const link = (a: number, b: number): void => {
    neighbours[a].push(b);
    neighbours[b].push(a);
  };
  for (let c = 0; c < count; c++) if (onBorder[c]) link(count, c);
  const seen = new Set<number>();
  for (let k = 0; k < adjacentRuns.length; k += 2) {
    const c1 = component[adjacentRuns[k]];
    const c2 = component[adjacentRuns[k + 1]];
    const key = c1 < c2 ? c1 * count + c2 : c2 * count + c1;
    if (seen.has(key)) continue;
    seen.add(key);
    if (c1 < c2) link(c1, c2);
    else link(c2, c1);
  }
  return neighbours;
}

/**
 * Per component, the outermost object that encloses it, or -1: an iterative depth-first search
 * from outside gives discovery times and low-links, and an object p encloses its DFS child c when
 * low[c] >= disc[p] (p is an articulation vertex between c and outside). Every component is
 * reachable from outside.
 */
function outermostEnclosingObjects(neighbours: number[][], isObject: Uint8Array): Int32Array {
  const vertices = neighbours.length;
  const root = vertices - 1;
  const disc = new Int32Array(vertices).fill(-1);
  const low = new Int32Array(vertices);
  const parentOf = new Int32Array(vertices).fill(-1);
  const cursor = new Int32Array(vertices);
  const preorder = new Int32Array(vertices);
  const stack = new Int32Array(vertices);
  let time = 0;
  let top = 0;
  disc[root] = low[root] = time;
  preorder[time++] = root;
  stack[top++] = root;
  while (top > 0) {
    const u = stack[top - 1];
    if (cursor[u] < neighbours[u].length) {
      const w = neighbours[u][cursor[u]++];
      if (disc[w] < 0) {
        parentOf[w] = u;
        disc[w] = low[w] = time;
        preorder[time++] = w;
        stack[top++] = w;
      } else if (w !== parentOf[u] && disc[w] < low[u]) {
        low[u] = disc[w];
      }
    } else {
      top--;
      const p = parentOf[u];
      if (p >= 0 && low[u] < low[p]) low[p] = low[u];
    }
  }
  // Top-down in preorder, so that an enclosed object's own enclosure is already known.
  const enclosing = new Int32Array(vertices).fill(-1);
  for (let k = 1; k < time; k++) {
    const c = preorder[k];
    const p = parentOf[c];
    if (enclosing[p] >= 0) enclosing[c] = enclosing[p];
    else if (p !== root && isObject[p] && low[c] >= disc[p]) enclosing[c] = p;
  }
  return enclosing;
}

/** Surviving value -> its new label 1..n, in the order asked for. */
function renumbering(finalValue: Int32Array, order: 'label' | 'raster'): Map<number, number> {
  const renumber = new Map<number, number>();
  if (order === 'raster') {
    // Components are numbered in raster order of first pixel, and an enclosing object starts
    // before anything it encloses, so first encounter gives raster order of first pixel.
    for (const value of finalValue)
      if (value > 0 && !renumber.has(value)) renumber.set(value, renumber.size + 1);
  } else {
    const survivors = new Set<number>();
    for (const value of finalValue) if (value > 0) survivors.add(value);
    [...survivors].sort((a, b) => a - b).forEach((label, k) => renumber.set(label, k + 1));
  }
  return renumber;
}

/** The repaired label image drawn run by run, and the pixel count of each new label. */
function paint(
  runs: EqualValueRuns,
  { count, size }: Components,
  finalValue: Int32Array,
  renumber: Map<number, number>,
  width: number,
  height: number,
): { labels: Int32Array; areas: Float64Array } {
  const { runStart, runEnd, runRow, component } = runs;
  const componentLabel = new Int32Array(count);
  const areas = new Float64Array(renumber.size + 1);
  for (let c = 0; c < count; c++) {
    const l = finalValue[c] > 0 ? renumber.get(finalValue[c])! : 0;
    componentLabel[c] = l;
    areas[l] += size[c];
  }
  const labels = new Int32Array(width * height);
  for (let r = 0; r < runs.runs; r++) {
    const c = component[r];
    const row = runRow[r] * width;
    if (componentLabel[c] !== 0) labels.fill(componentLabel[c], row + runStart[r], row + runEnd[r]);
  }
  return { labels, areas };
}
