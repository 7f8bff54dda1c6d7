/**
 * Hole filling of a binary mask.
 *
 * Reference: scipy.ndimage.binary_fill_holes with its default (cross-shaped) structure: a hole is a
 * background region not 4-connected to the image border; it becomes foreground. Filling under
 * 4-connectivity of the background is what keeps every 4-connected object free of holes and of
 * pinch vertices (see label.ts). Implemented with the run-based labelling of label.ts applied to
 * the background: components with a run on the border stay background, the others are filled.
 */
import { labelRuns } from './label.js';

/** Returns a new 0/1 mask. */
export function fillHoles(mask: Uint8Array, width: number, height: number): Uint8Array {
  const n = width * height;
  if (mask.length !== n) throw new Error(`mask length ${mask.length} != ${width} x ${height}`);
  const { runs, runStart, runEnd, runRow, component, count } = labelRuns(mask, width, height, false);
  const open = new Uint8Array(count);
  for (let r = 0; r < runs; r++) {
    if (runRow[r] === 0 || runRow[r] === height - 1 || runStart[r] === 0 || runEnd[r] === width)
      open[component[r]] = 1;
  }
  const out = new Uint8Array(n).fill(1);
  for (let r = 0; r < runs; r++) {
    if (open[component[r]] === 0) continue;
    const row = runRow[r] * width;
    out.fill(0, row + runStart[r], row + runEnd[r]);
  }
  return out;
}
