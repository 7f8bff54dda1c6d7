/**
 * Exact Euclidean distance transform of a binary mask.
 *
 * Reference: P. F. Felzenszwalb and D. P. Huttenlocher, "Distance Transforms of Sampled Functions",
 * Theory of Computing 8, 2012: the 1-D lower envelope of parabolas, applied along rows to the
 * column distances.
 * For every foreground pixel the result is the squared distance to the nearest background pixel
 * (background pixels are 0). Squared distances are integers, hence exact and deterministic; take
 * Math.sqrt for distances. As in scipy.ndimage.distance_transform_edt, only pixels of the image
 * count as background (the outside of the image does not); a mask with no background gets
 * Infinity everywhere.
 */

/** 1-D squared distance transform of f (length n) into d, using scratch v (Int32, n) and z (n + 1). */
function transform1d(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  // Skip leading infinite samples: they are not parabolas.
  let q0 = 0;
  while (q0 < n && f[q0] === Infinity) q0++;
  if (q0 === n) {
    for (let q = 0; q < n; q++) d[q] = Infinity;
    return;
  }
  v[0] = q0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = q0 + 1; q < n; q++) {
    const fq = f[q];
    if (fq === Infinity) continue;
    let s: number;
    for (;;) {
      const p = v[k];
      s = (fq + q * q - (f[p] + p * p)) / (2 * q - 2 * p);
      if (s <= z[k]) {
        k--;
        if (k < 0) break;
      } else break;
    }
    k++;
    v[k] = q;
    z[k] = k === 0 ? -Infinity : s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    const p = v[k];
    d[q] = (q - p) * (q - p) + f[p];
  }
}

/** Squared Euclidean distance of each foreground pixel to the nearest background pixel. */
export function squaredDistanceTransform(mask: Uint8Array, width: number, height: number): Float64Array {
  const n = width * height;
  if (mask.length !== n) throw new Error(`mask length ${mask.length} != ${width} x ${height}`);
  const out = new Float64Array(n);
  const size = Math.max(width, height);
  const f = new Float64Array(size);
  const d = new Float64Array(size);
  const v = new Int32Array(size);
  const z = new Float64Array(size + 1);
  // Columns: for a binary mask the 1-D distance along a column is a forward and a backward scan
  // (A. Meijster, J. Roerdink, W. Hesselink, "A general algorithm for computing distance transforms
  // in linear time", 2000, phase 1), done for all columns at once in row-major order.
  const none = width + height;
  const g = new Int32Array(n);
  for (let x = 0; x < width; x++) g[x] = mask[x] === 0 ? 0 : none;
  for (let y = 1; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) g[row + x] = mask[row + x] === 0 ? 0 : g[row - width + x] + 1;
  }
  for (let y = height - 2; y >= 0; y--) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const below = g[row + width + x] + 1;
      if (below < g[row + x]) g[row + x] = below;
    }
  }
  // Rows. Only foreground runs need work, and for a run whose column distances are at most M
  // only samples within M columns of the run can be nearer, so each run is solved on that window.
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let x = 0;
    while (x < width) {
      while (x < width && g[row + x] === 0) x++;
      if (x === width) break;
      const s = x;
      let m = 0;
      while (x < width && g[row + x] !== 0) {
        if (g[row + x] > m) m = g[row + x];
        x++;
      }
      const lo = m >= none ? 0 : Math.max(0, s - m);
      const hi = m >= none ? width : Math.min(width, x + m);
      const len = hi - lo;
      for (let k = 0; k < len; k++) {
        const c = g[row + lo + k];
        f[k] = c >= none ? Infinity : c * c;
      }
      transform1d(f, len, d, v, z);
      for (let k = s; k < x; k++) out[row + k] = d[k - lo];
    }
  }
  return out;
}
