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
import { labelEqualValueRuns } from './label.js';
import type { LabelImage } from './types.js';

export interface RepairReport {
  /** Pixels that changed label (strays set to background, enclosed pixels given to an object). */
  readonly changedPixels: number;
  /** Original labels that no longer exist (absorbed by an enclosing object, or empty). */
  readonly removedLabels: number;
}

export interface RepairOptions {
  /**
   * Numbering of the surviving labels: 'label' (default) keeps their relative order; 'raster'
   * numbers them in raster order of their first pixel, as label.ts does.
   */
  readonly order?: 'label' | 'raster';
}

export function repairLabelImage(
  image: LabelImage,
  options: RepairOptions = {},
): { image: LabelImage; report: RepairReport; areas: Float64Array } {
  const { width, height, labels } = image;
  const n = width * height;
  if (labels.length !== n) throw new Error(`labels length ${labels.length} != ${width} x ${height}`);
  let values = labels;
  for (let i = 0; i < n; i++) {
    if (labels[i] < 0) {
      values = labels.map((l) => (l > 0 ? l : 0));
      break;
    }
  }
  const runs = labelEqualValueRuns(values, width, height);
  const { runStart, runEnd, runRow, runValue, component, count: v } = runs;

  // Per component: value, size (components are numbered in raster order of first pixel).
  const value = new Int32Array(v);
  const size = new Float64Array(v);
  const onBorder = new Uint8Array(v);
  for (let r = 0; r < runs.runs; r++) {
    const c = component[r];
    value[c] = runValue[r];
    size[c] += runEnd[r] - runStart[r];
    if (runRow[r] === 0 || runRow[r] === height - 1 || runStart[r] === 0 || runEnd[r] === width)
      onBorder[c] = 1;
  }
  // Step 2: the largest component of each label.
  const best = new Map<number, number>();
  for (let c = 0; c < v; c++) {
    if (value[c] === 0) continue;
    const b = best.get(value[c]);
    if (b === undefined || size[c] > size[b]) best.set(value[c], c);
  }
  const isObject = new Uint8Array(v);
  for (const c of best.values()) isObject[c] = 1;

  // Step 3: adjacency (CSR) between components, with vertex v = outside.
  const root = v;
  const edgesA: number[] = [];
  const edgesB: number[] = [];
  const addEdge = (a: number, b: number): void => {
    edgesA.push(a);
    edgesB.push(b);
  };
  for (let c = 0; c < v; c++) if (onBorder[c]) addEdge(root, c);
  const seen = new Set<number>();
  const pairs = runs.adjacentRuns;
  for (let k = 0; k < pairs.length; k += 2) {
    const c1 = component[pairs[k]];
    const c2 = component[pairs[k + 1]];
    const a = c1 < c2 ? c1 : c2;
    const b = c1 < c2 ? c2 : c1;
    const key = a * v + b;
    if (seen.has(key)) continue;
    seen.add(key);
    addEdge(a, b);
  }
  const vertices = v + 1;
  const degree = new Int32Array(vertices + 1);
  for (let e = 0; e < edgesA.length; e++) {
    degree[edgesA[e] + 1]++;
    degree[edgesB[e] + 1]++;
  }
  for (let i = 1; i <= vertices; i++) degree[i] += degree[i - 1];
  const start = degree; // start[u]..start[u+1] after filling
  const adjacency = new Int32Array(2 * edgesA.length);
  const fill = start.slice(0, vertices);
  for (let e = 0; e < edgesA.length; e++) {
    adjacency[fill[edgesA[e]]++] = edgesB[e];
    adjacency[fill[edgesB[e]]++] = edgesA[e];
  }

  // Iterative DFS from the outside vertex: discovery, low-link, parent, preorder.
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
  cursor[root] = start[root];
  stack[top++] = root;
  while (top > 0) {
    const u = stack[top - 1];
    if (cursor[u] < start[u + 1]) {
      const w = adjacency[cursor[u]++];
      if (disc[w] < 0) {
        parentOf[w] = u;
        disc[w] = low[w] = time;
        preorder[time++] = w;
        cursor[w] = start[w];
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
  // Outermost enclosing object, top-down in preorder. Every component is reachable from outside.
  const enclosing = new Int32Array(vertices).fill(-1);
  for (let k = 1; k < time; k++) {
    const c = preorder[k];
    const p = parentOf[c];
    if (enclosing[p] >= 0) enclosing[c] = enclosing[p];
    else if (p !== root && isObject[p] && low[c] >= disc[p]) enclosing[c] = p;
  }

  // Step 4: final value per component, then renumber surviving labels by original order.
  const finalValue = new Int32Array(v);
  for (let c = 0; c < v; c++) {
    const e = enclosing[c];
    finalValue[c] = e >= 0 ? value[e] : isObject[c] ? value[c] : 0;
  }
  const renumber = new Map<number, number>();
  if (options.order === 'raster') {
    // Components are numbered in raster order of first pixel, and an enclosing object starts
    // before anything it encloses, so first encounter gives raster order of first pixel.
    for (let c = 0; c < v; c++)
      if (finalValue[c] > 0 && !renumber.has(finalValue[c])) renumber.set(finalValue[c], renumber.size + 1);
  } else {
    const survivors = new Set<number>();
    for (let c = 0; c < v; c++) if (finalValue[c] > 0) survivors.add(finalValue[c]);
    [...survivors].sort((a, b) => a - b).forEach((label, k) => renumber.set(label, k + 1));
  }
  const survivorCount = renumber.size;
  const componentLabel = new Int32Array(v);
  const areas = new Float64Array(survivorCount + 1);
  for (let c = 0; c < v; c++) {
    const l = finalValue[c] > 0 ? renumber.get(finalValue[c])! : 0;
    componentLabel[c] = l;
    areas[l] += size[c];
  }
  const out = new Int32Array(n);
  let changed = 0;
  for (let r = 0; r < runs.runs; r++) {
    const c = component[r];
    const row = runRow[r] * width;
    if (componentLabel[c] !== 0) out.fill(componentLabel[c], row + runStart[r], row + runEnd[r]);
    if (finalValue[c] !== runValue[r]) changed += runEnd[r] - runStart[r];
  }
  if (values !== labels) for (let i = 0; i < n; i++) if (labels[i] < 0) changed++;
  const originalLabels = new Set<number>();
  for (let c = 0; c < v; c++) if (value[c] > 0) originalLabels.add(value[c]);
  return {
    image: { width, height, labels: out, count: survivorCount },
    report: { changedPixels: changed, removedLabels: originalLabels.size - survivorCount },
    /** Pixel count by new label (index 0: background). */
    areas,
  };
}
