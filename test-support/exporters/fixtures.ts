/**
 * Test-only fixtures for the exporter tests: hand-made segmentation results, a tiny outline tracer
 * (pixel-edge tracing of one simply connected, pinch-free object, vertices only at direction changes,
 * positive shoelace on y-down coordinates, starting at the top-left corner of the object's first
 * pixel in raster order), ImageJ's traced perimeter, and a seeded generator of random label images.
 * Not used by production code.
 */
import { mulberry32 as uint32Generator } from '../../fixtures/generator/prng.js';
import type { Point, Ring } from '../../mock-server/engines/geometry/types.js';
import type {
  LabelImage,
  SegmentationResult,
  SegmentedObject,
} from '../../mock-server/engines/segmentation/types.js';
import type { ExportContext } from '../../mock-server/engines/exporters/export-context.js';

/** ImageJ's PolygonRoi.getTracedPerimeter (pixel units), same vertex order. */
export function imagejTracedPerimeter(ring: Ring): number {
  const n = ring.length;
  let sumdx = 0;
  let sumdy = 0;
  let nCorners = 0;
  let dx1 = ring[0][0] - ring[n - 1][0];
  let dy1 = ring[0][1] - ring[n - 1][1];
  let side1 = Math.abs(dx1) + Math.abs(dy1);
  let corner = false;
  for (let i = 0; i < n; i++) {
    const next = (i + 1) % n;
    const dx2 = ring[next][0] - ring[i][0];
    const dy2 = ring[next][1] - ring[i][1];
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
  return sumdx + sumdy - nCorners * (2 - Math.sqrt(2));
}

/** Traces the outline of the pixels where `inside(x, y)` holds; they must form one simple region. */
export function traceRegion(pixels: readonly Point[], inside: (x: number, y: number) => boolean): Ring {
  const next = new Map<string, Point>();
  const key = (x: number, y: number) => `${x},${y}`;
  const add = (from: Point, to: Point) => {
    const k = key(from[0], from[1]);
    if (next.has(k)) throw new Error(`pinch vertex at ${k}: the test tracer needs pinch-free objects`);
    next.set(k, to);
  };
  for (const [c, r] of pixels) {
    if (!inside(c, r - 1)) add([c, r], [c + 1, r]);
    if (!inside(c + 1, r)) add([c + 1, r], [c + 1, r + 1]);
    if (!inside(c, r + 1)) add([c + 1, r + 1], [c, r + 1]);
    if (!inside(c - 1, r)) add([c, r + 1], [c, r]);
  }
  const first = [...pixels].sort((a, b) => a[1] - b[1] || a[0] - b[0])[0];
  const path: Point[] = [];
  let at: Point = [first[0], first[1]];
  do {
    path.push(at);
    const to = next.get(key(at[0], at[1]));
    if (!to) throw new Error(`open outline at ${key(at[0], at[1])}`);
    at = to;
  } while (at[0] !== first[0] || at[1] !== first[1]);
  if (path.length !== next.size) throw new Error('object has a hole or several parts');
  const n = path.length;
  return path.filter((p, i) => {
    const prev = path[(i - 1 + n) % n];
    const after = path[(i + 1) % n];
    return (
      Math.sign(p[0] - prev[0]) !== Math.sign(after[0] - p[0]) ||
      Math.sign(p[1] - prev[1]) !== Math.sign(after[1] - p[1])
    );
  });
}

export function objectFromPixels(label: number, pixels: readonly Point[]): SegmentedObject {
  const set = new Set(pixels.map(([x, y]) => `${x},${y}`));
  const outline = traceRegion(pixels, (x, y) => set.has(`${x},${y}`));
  let sx = 0;
  let sy = 0;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of pixels) {
    sx += x;
    sy += y;
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  return {
    label,
    outline,
    measurements: {
      areaPx: pixels.length,
      perimeterPx: imagejTracedPerimeter(outline),
      centroidX: sx / pixels.length + 0.5,
      centroidY: sy / pixels.length + 0.5,
      bbox: { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 },
    },
  };
}

/** Our own label-image-to-result, for when the geometry engine's is not available. */
export function resultFromLabels(image: LabelImage): SegmentationResult {
  const pixelsByLabel: Point[][] = Array.from({ length: image.count }, () => []);
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const label = image.labels[y * image.width + x];
      if (label > 0) pixelsByLabel[label - 1].push([x, y]);
    }
  }
  return {
    width: image.width,
    height: image.height,
    objects: pixelsByLabel.map((pixels, i) => objectFromPixels(i + 1, pixels)),
  };
}

/** Pixels of a rectangle. */
export function rectPixels(x: number, y: number, w: number, h: number): Point[] {
  const out: Point[] = [];
  for (let r = y; r < y + h; r++) for (let c = x; c < x + w; c++) out.push([c, r]);
  return out;
}

/** Draws pixel lists into a label image, label i + 1 for list i. */
export function labelImageOf(
  width: number,
  height: number,
  objects: readonly (readonly Point[])[],
): LabelImage {
  const labels = new Int32Array(width * height);
  objects.forEach((pixels, i) => {
    for (const [x, y] of pixels) labels[y * width + x] = i + 1;
  });
  return { width, height, labels, count: objects.length };
}

/**
 * The hand fixtures, with outlines and measurements written out by hand (the tests check that the
 * test tracer agrees): a 3x2 rectangle, an L, a 5x5 ring with a notch in its bottom side, and a
 * single pixel in the ring's hole (same bounds centre as the ring, so its ROI name repeats).
 */
export const HAND_WIDTH = 20;
export const HAND_HEIGHT = 16;

const SQRT2 = Math.sqrt(2);

export const HAND_PIXELS: Point[][] = [
  rectPixels(2, 1, 3, 2),
  [...rectPixels(8, 1, 1, 3), ...rectPixels(9, 3, 2, 1)],
  rectPixels(10, 10, 5, 5).filter(
    ([x, y]) => !(x >= 11 && x <= 13 && y >= 11 && y <= 13) && !(x === 12 && y === 14),
  ),
  [[12, 12]],
];

const NOTCHED_RING: Ring = [
  [10, 10],
  [15, 10],
  [15, 15],
  [13, 15],
  [13, 14],
  [14, 14],
  [14, 11],
  [11, 11],
  [11, 14],
  [12, 14],
  [12, 15],
  [10, 15],
];

export const HAND_RESULT: SegmentationResult = {
  width: HAND_WIDTH,
  height: HAND_HEIGHT,
  objects: [
    {
      label: 1,
      outline: [
        [2, 1],
        [5, 1],
        [5, 3],
        [2, 3],
      ],
      measurements: {
        areaPx: 6,
        perimeterPx: 10 - 4 * (2 - SQRT2),
        centroidX: 3.5,
        centroidY: 2,
        bbox: { x: 2, y: 1, width: 3, height: 2 },
      },
    },
    {
      label: 2,
      outline: [
        [8, 1],
        [9, 1],
        [9, 3],
        [11, 3],
        [11, 4],
        [8, 4],
      ],
      measurements: {
        // ImageJ skips a corner after a 1-long side that follows a corner: sides into the vertices
        // 3,1,2,2,1,3 give 4 corners
        areaPx: 5,
        perimeterPx: 12 - 4 * (2 - SQRT2),
        centroidX: (8 * 3 + 9 + 10) / 5 + 0.5,
        centroidY: (1 + 2 + 3 + 3 + 3) / 5 + 0.5,
        bbox: { x: 8, y: 1, width: 3, height: 3 },
      },
    },
    {
      label: 3,
      outline: NOTCHED_RING,
      measurements: {
        areaPx: 15,
        // 32 edge units; ImageJ's loop counts 10 corners from vertex 0 (confirmed by ImageJ's getLength)
        perimeterPx: 32 - 10 * (2 - SQRT2),
        centroidX: 180 / 15 + 0.5,
        centroidY: 178 / 15 + 0.5,
        bbox: { x: 10, y: 10, width: 5, height: 5 },
      },
    },
    {
      label: 4,
      outline: [
        [12, 12],
        [13, 12],
        [13, 13],
        [12, 13],
      ],
      measurements: {
        areaPx: 1,
        // ImageJ's own example: a 1x1 pixel has 2 "non-adjacent" corners
        perimeterPx: 4 - 2 * (2 - SQRT2),
        centroidX: 12.5,
        centroidY: 12.5,
        bbox: { x: 12, y: 12, width: 1, height: 1 },
      },
    },
  ],
};

/** The fixture generator's mulberry32, as floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  const next = uint32Generator(seed);
  return () => next() / 4294967296;
}

/**
 * A label image of random small 4-connected blobs, one per grid cell (some cells empty); neighbouring
 * blobs may touch. With `simple` (the default) each blob is also made simply connected and pinch-free
 * (holes filled, diagonal-only 2x2 patterns closed), which the test tracer needs; without it blobs
 * may have holes and pinch vertices, for the project's own repair + trace pipeline.
 */
export function randomLabelImage(
  seed: number,
  cols: number,
  rows: number,
  cell = 10,
  simple = true,
): LabelImage {
  const random = mulberry32(seed);
  const width = cols * cell;
  const height = rows * cell;
  const blobs: Point[][] = [];
  for (let gy = 0; gy < rows; gy++) {
    for (let gx = 0; gx < cols; gx++) {
      if (random() < 0.08) continue;
      const grid = new Uint8Array(cell * cell);
      const target = 1 + Math.floor(random() * random() * 45);
      const start = Math.floor(random() * cell * cell);
      grid[start] = 1;
      let size = 1;
      for (let tries = 0; size < target && tries < 2000; tries++) {
        const i = Math.floor(random() * cell * cell);
        if (grid[i]) continue;
        const x = i % cell;
        const y = Math.floor(i / cell);
        const near =
          (x > 0 && grid[i - 1]) ||
          (x < cell - 1 && grid[i + 1]) ||
          (y > 0 && grid[i - cell]) ||
          (y < cell - 1 && grid[i + cell]);
        if (near) {
          grid[i] = 1;
          size++;
        }
      }
      if (simple) makeSimple(grid, cell);
      const pixels: Point[] = [];
      for (let i = 0; i < grid.length; i++)
        if (grid[i]) pixels.push([gx * cell + (i % cell), gy * cell + Math.floor(i / cell)]);
      blobs.push(pixels);
    }
  }
  return labelImageOf(width, height, blobs);
}

function makeSimple(grid: Uint8Array, n: number): void {
  for (let changed = true; changed;) {
    changed = false;
    // fill holes: background not 4-connected to the border
    const outside = new Uint8Array(n * n);
    const stack: number[] = [];
    for (let i = 0; i < n * n; i++) {
      const x = i % n;
      const y = Math.floor(i / n);
      if ((x === 0 || y === 0 || x === n - 1 || y === n - 1) && !grid[i]) {
        outside[i] = 1;
        stack.push(i);
      }
    }
    while (stack.length > 0) {
      const i = stack.pop() as number;
      const x = i % n;
      for (const j of [x > 0 ? i - 1 : -1, x < n - 1 ? i + 1 : -1, i - n, i + n]) {
        if (j >= 0 && j < n * n && !grid[j] && !outside[j]) {
          outside[j] = 1;
          stack.push(j);
        }
      }
    }
    for (let i = 0; i < n * n; i++) {
      if (!grid[i] && !outside[i]) {
        grid[i] = 1;
        changed = true;
      }
    }
    // close diagonal pinches
    for (let y = 0; y + 1 < n; y++) {
      for (let x = 0; x + 1 < n; x++) {
        const a = grid[y * n + x];
        const b = grid[y * n + x + 1];
        const c = grid[(y + 1) * n + x];
        const d = grid[(y + 1) * n + x + 1];
        if (a && d && !b && !c) {
          grid[y * n + x + 1] = 1;
          changed = true;
        } else if (b && c && !a && !d) {
          grid[y * n + x] = 1;
          changed = true;
        }
      }
    }
  }
}

/** Deterministic UUID-shaped ids (version 4 layout) for fixtures. */
export function fixtureUuid(i: number): string {
  const hex = (i + 1).toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

export function contextFor(
  result: SegmentationResult,
  overrides: Partial<ExportContext> = {},
): ExportContext {
  return {
    imageName: 'plate 1, well "A1" – µm.tif',
    imageWidth: result.width,
    imageHeight: result.height,
    segmentationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
    segmentationSource: 'cpu-threshold',
    modelName: 'cyto-base',
    result,
    roiIds: result.objects.map((_, i) => fixtureUuid(i)),
    ...overrides,
  };
}
