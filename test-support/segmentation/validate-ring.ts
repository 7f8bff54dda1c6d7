/**
 * Checks that a ring is a valid traced outline: integer vertices, axis-parallel edges, no
 * collinear or repeated vertices, simple (no self-touching) and positively oriented.
 *
 * Simplicity test: expand the ring into unit steps along pixel edges; unit segments between
 * lattice points can meet only at lattice points, so the ring is simple exactly when no lattice
 * point is visited twice. O(outline length).
 */
import { shoelaceArea } from '../../mock-server/engines/geometry/measure.js';
import type { Ring } from '../../mock-server/engines/geometry/types.js';

/** Returns null for a valid ring, otherwise the first problem found. */
export function findRingProblem(ring: Ring): string | null {
  const n = ring.length;
  if (n < 4) return `only ${n} vertices`;
  const visited = new Set<string>();
  for (let i = 0; i < n; i++) {
    const [x, y] = ring[i];
    const [nx, ny] = ring[(i + 1) % n];
    const [px, py] = ring[(i + n - 1) % n];
    if (!Number.isInteger(x) || !Number.isInteger(y)) return `vertex ${i} is not integer`;
    if ((nx !== x) === (ny !== y)) return `edge ${i} is not axis-parallel or has zero length`;
    const collinear = (px === x && x === nx) || (py === y && y === ny);
    if (collinear) return `vertex ${i} is collinear`;
    const sx = Math.sign(nx - x);
    const sy = Math.sign(ny - y);
    let cx = x;
    let cy = y;
    while (cx !== nx || cy !== ny) {
      const key = `${cx},${cy}`;
      if (visited.has(key)) return `ring touches itself at (${cx}, ${cy})`;
      visited.add(key);
      cx += sx;
      cy += sy;
    }
  }
  if (!(shoelaceArea(ring) > 0)) return 'ring is not positively oriented';
  return null;
}
