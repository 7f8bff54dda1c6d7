import { findRoot, union } from '../../mock-server/engines/segmentation/union-find.js';

/**
 * The tests' pixel-by-pixel oracle for labelEqualValueRuns (label.ts): the 4-connected components
 * of equal value of an integer image, background included; every pixel gets a component id
 * 0..count-1, in raster order of first pixel.
 */
export function labelEqualValueComponents(
  values: Int32Array,
  width: number,
  height: number,
): { components: Int32Array; count: number } {
  const n = width * height;
  if (values.length !== n) throw new Error(`values length ${values.length} != ${width} x ${height}`);
  const components = new Int32Array(n);
  const parent = new Int32Array(n);
  let next = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      const v = values[i];
      const sameLeft = x > 0 && values[i - 1] === v;
      const sameUp = y > 0 && values[i - width] === v;
      if (!sameLeft && !sameUp) {
        parent[next] = next;
        components[i] = next++;
      } else if (!sameLeft) {
        components[i] = components[i - width];
      } else if (!sameUp) {
        components[i] = components[i - 1];
      } else {
        const a = components[i - 1];
        const b = components[i - width];
        components[i] = a === b ? a : union(parent, a, b);
      }
    }
  }
  const final = new Int32Array(next).fill(-1);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const r = findRoot(parent, components[i]);
    let f = final[r];
    if (f < 0) f = final[r] = count++;
    components[i] = f;
  }
  return { components, count };
}
