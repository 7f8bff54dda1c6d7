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

/** Joins the sets of a and b under the smaller root, which it answers. */
export function union(parent: Int32Array, a: number, b: number): number {
  const ra = findRoot(parent, a);
  const rb = findRoot(parent, b);
  if (ra === rb) return ra;
  if (ra < rb) {
    parent[rb] = ra;
    return ra;
  }
  parent[ra] = rb;
  return rb;
}

/** `count` empty run tables, room for 1024 runs each (doubled as they fill). */
export function runTables(count: number): Int32Array[] {
  return Array.from({ length: count }, () => new Int32Array(1024));
}

/** Copies of full run tables, each with twice the entries. */
export function doubled<T extends Int32Array[]>(tables: [...T]): T {
  return tables.map((a) => {
    const b = new Int32Array(2 * a.length);
    b.set(a);
    return b;
  }) as T;
}

/**
 * Numbers the sets of 0..n-1 from 0 in the order of their smallest member: union keeps the
 * smallest index as a set's root, so the roots are met in that order.
 */
export function numberSets(parent: Int32Array, n: number): { component: Int32Array; count: number } {
  const component = new Int32Array(n);
  const final = new Int32Array(n).fill(-1);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const root = findRoot(parent, i);
    let c = final[root];
    if (c < 0) c = final[root] = count++;
    component[i] = c;
  }
  return { component, count };
}
