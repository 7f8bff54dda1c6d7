/**
 * Planar geometry on pixel-corner coordinates (x right, y down; pixel (c, r) covers
 * [c, c+1) x [r, r+1)), the conventions the exports follow (ImageJ's). Rings are closed or open
 * lists of [x, y]; the functions below treat them as closed.
 */
export type Ring = number[][];

function open(ring: Ring): Ring {
  const last = ring[ring.length - 1];
  return ring.length > 1 && last[0] === ring[0][0] && last[1] === ring[0][1] ? ring.slice(0, -1) : ring;
}

/** Twice the signed area (positive: counter-clockwise in RFC 7946's sense, clockwise on screen). */
export function signedArea2(ring: Ring): number {
  const points = open(ring);
  let sum = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i];
    const [x2, y2] = points[(i + 1) % points.length];
    sum += x1 * y2 - x2 * y1;
  }
  return sum;
}

/** Shoelace area: for an outline traced along pixel edges, the pixel count. */
export function area(ring: Ring): number {
  return Math.abs(signedArea2(ring)) / 2;
}

/**
 * Area centroid of the polygon. For an outline along pixel edges it is the mean of the pixel
 * centres, i.e. mean pixel index + 0.5: the documented centroid_x/y.
 */
export function centroid(ring: Ring): { x: number; y: number } {
  const points = open(ring);
  let a2 = 0;
  let cx = 0;
  let cy = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i];
    const [x2, y2] = points[(i + 1) % points.length];
    const cross = x1 * y2 - x2 * y1;
    a2 += cross;
    cx += (x1 + x2) * cross;
    cy += (y1 + y2) * cross;
  }
  return { x: cx / (3 * a2), y: cy / (3 * a2) };
}

/** ImageJ's bounding rectangle of an outline: BX, BY, Width, Height. */
export function bounds(ring: Ring): { x: number; y: number; w: number; h: number } {
  const xs = ring.map((p) => p[0]);
  const ys = ring.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}

/** Drops the closing repeat and vertices in the middle of a straight run. */
export function corners(xs: number[], ys: number[]): { xs: number[]; ys: number[] } {
  let points = xs.map((x, i) => [x, ys[i]]);
  points = open(points);
  const kept = points.filter((p, i) => {
    const prev = points[(i - 1 + points.length) % points.length];
    const next = points[(i + 1) % points.length];
    return (p[0] - prev[0]) * (next[1] - p[1]) - (p[1] - prev[1]) * (next[0] - p[0]) !== 0;
  });
  return { xs: kept.map((p) => p[0]), ys: kept.map((p) => p[1]) };
}

/**
 * ImageJ's traced perimeter (PolygonRoi.getTracedPerimeter): the boundary length with each
 * corner that is not next to another corner counted as a diagonal, i.e.
 * sum|dx| + sum|dy| - nCorners * (2 - sqrt 2). Like ImageJ, it walks the vertices in the order and
 * from the start they are stored in.
 */
export function tracedPerimeter(xs: number[], ys: number[]): number {
  const n = xs.length;
  let sumdx = 0;
  let sumdy = 0;
  let nCorners = 0;
  let dx1 = xs[0] - xs[n - 1];
  let dy1 = ys[0] - ys[n - 1];
  let side1 = Math.abs(dx1) + Math.abs(dy1);
  let corner = false;
  for (let i = 0; i < n; i++) {
    const next = (i + 1) % n;
    const dx2 = xs[next] - xs[i];
    const dy2 = ys[next] - ys[i];
    sumdx += Math.abs(dx1);
    sumdy += Math.abs(dy1);
    const side2 = Math.abs(dx2) + Math.abs(dy2);
    if (side1 > 1 || !corner) {
      corner = true;
      nCorners++;
    } else corner = false;
    dx1 = dx2;
    dy1 = dy2;
    side1 = side2;
  }
  return sumdx + sumdy - nCorners * (2 - Math.SQRT2);
}

/**
 * The pixels whose centre lies inside the ring (crossing rule): for an outline along pixel edges,
 * exactly the cell's pixels. Answers indexes y * width + x.
 */
export function pixelsInside(ring: Ring, width: number, height: number): number[] {
  const points = open(ring);
  const b = bounds(points);
  const inside: number[] = [];
  for (let y = Math.max(0, b.y); y < Math.min(height, b.y + b.h); y++) {
    const py = y + 0.5;
    const crossings: number[] = [];
    for (let i = 0; i < points.length; i++) {
      const [x1, y1] = points[i];
      const [x2, y2] = points[(i + 1) % points.length];
      if (y1 <= py !== y2 <= py) crossings.push(x1 + ((py - y1) * (x2 - x1)) / (y2 - y1));
    }
    crossings.sort((a, c) => a - c);
    for (let k = 0; k + 1 < crossings.length; k += 2)
      for (
        let x = Math.max(0, Math.ceil(crossings[k] - 0.5));
        x < Math.min(width, crossings[k + 1] - 0.5);
        x++
      )
        inside.push(y * width + x);
  }
  return inside;
}
