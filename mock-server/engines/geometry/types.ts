/**
 * Geometry in ImageJ's pixel-corner convention: x right, y down, pixel (c, r) covers
 * [c, c+1) x [r, r+1). Outline vertices are integer pixel corners.
 */
export type Point = readonly [x: number, y: number];

/**
 * A closed outline traced along pixel edges. The first vertex is not repeated at the end.
 * Orientation: positive shoelace sum computed on the raw (y-down) coordinates, which is what
 * RFC 7946 calls counter-clockwise for an exterior ring. The ring is simple (no self-touching),
 * and its shoelace area equals the pixel count of the object it outlines.
 */
export type Ring = Point[];

export interface BoundingBox {
  /** ImageJ's BX, BY, Width, Height in pixels. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Measurements with ImageJ's definitions (see DESIGN.md, "Geometry and measurement conventions"). */
export interface Measurements {
  readonly areaPx: number;
  readonly perimeterPx: number;
  readonly centroidX: number;
  readonly centroidY: number;
  readonly bbox: BoundingBox;
}
