/**
 * Union-find helpers over Int32Array parent tables, shared by the labelling and watershed passes.
 * Reference: Tarjan, "Efficiency of a good but not linear set union algorithm", JACM 22(2), 1975
 * (find with path halving).
 */

/** The root of i's set, halving the path on the way. */
export function findRoot(parent: Int32Array, i: number): number {
  let r = i;
  while (parent[r] !== r) {
    parent[r] = parent[parent[r]];
    r = parent[r];
  }
  return r;
}

/** A copy of `a` in a table of `capacity` entries (run tables grow by doubling). */
export function growInt32(a: Int32Array, capacity: number): Int32Array {
  const b = new Int32Array(capacity);
  b.set(a);
  return b;
}
