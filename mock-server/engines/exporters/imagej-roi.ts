/**
 * One outline as an ImageJ `.roi` file, byte for byte what ImageJ's RoiEncoder (version 228, ImageJ
 * 1.52i+) writes for a traced PolygonRoi with a name and no stroke, fill, position or properties.
 * Reference: ij/io/RoiEncoder.java and ij/io/RoiDecoder.java (imagej/ImageJ).
 *
 * Layout, all numbers big-endian:
 *   header (64 bytes)
 *     0   "Iout"               4  version (short, 228)    6  type (byte, 8 = traced)
 *     8   top   10 left   12 bottom   14 right   (shorts; bottom = top + height)
 *     16  n coordinates (short)
 *     18-55 line coordinates, stroke, colours, subtype, options: all 0 for us
 *     56  position (int, 0)    60 header2 offset (int) = 64 + 4n
 *   coordinates: n x (short, relative to left), then n y (short, relative to top)
 *   header2 (64 bytes) at 64 + 4n
 *     +4/+8/+12 c, z, t position (int, 0)    +16 name offset (int) = header2 + 64
 *     +20 name length in UTF-16 code units (int)    +36 float stroke width (0.0)    rest 0
 *   name: UTF-16BE code units
 *
 * Limits, from RoiDecoder.getShort (signed shorts, read as unsigned only below -5000): vertex
 * coordinates must lie in 0..60535 and an outline may have at most 60535 vertices. Past either,
 * ImageJ itself switches to float or composite ROIs; we throw instead.
 */
import type { Ring } from '../geometry/types.js';

export const ROI_VERSION = 228;
export const ROI_TYPE_TRACED = 8;
export const HEADER_SIZE = 64;
export const HEADER2_SIZE = 64;
export const MAX_SHORT_VALUE = 60535;

const OFFSET = {
  version: 4,
  type: 6,
  top: 8,
  left: 10,
  bottom: 12,
  right: 14,
  nCoordinates: 16,
  position: 56,
  header2Offset: 60,
  coordinates: 64,
} as const;

const HEADER2 = {
  cPosition: 4,
  zPosition: 8,
  tPosition: 12,
  nameOffset: 16,
  nameLength: 20,
  floatStrokeWidth: 36,
} as const;

/** The `.roi` bytes of one traced outline (vertex order kept: ImageJ's perimeter depends on it). */
export function encodeTracedRoi(ring: Ring, name: string): Uint8Array {
  const n = ring.length;
  if (n < 3) throw new RangeError(`an outline needs at least 3 vertices, got ${n}`);
  if (n > MAX_SHORT_VALUE)
    throw new RangeError(`outline has ${n} vertices; ImageJ .roi holds at most ${MAX_SHORT_VALUE}`);
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const [x, y] of ring) {
    if (
      !Number.isInteger(x) ||
      !Number.isInteger(y) ||
      x < 0 ||
      y < 0 ||
      x > MAX_SHORT_VALUE ||
      y > MAX_SHORT_VALUE
    ) {
      throw new RangeError(`outline vertex (${x}, ${y}) is not an integer in 0..${MAX_SHORT_VALUE}`);
    }
    if (x < left) left = x;
    if (x > right) right = x;
    if (y < top) top = y;
    if (y > bottom) bottom = y;
  }

  const header2 = HEADER_SIZE + 4 * n;
  const nameStart = header2 + HEADER2_SIZE;
  const bytes = new Uint8Array(nameStart + 2 * name.length);
  const view = new DataView(bytes.buffer);
  bytes.set([73, 111, 117, 116], 0); // "Iout"
  view.setUint16(OFFSET.version, ROI_VERSION);
  view.setUint8(OFFSET.type, ROI_TYPE_TRACED);
  view.setUint16(OFFSET.top, top);
  view.setUint16(OFFSET.left, left);
  view.setUint16(OFFSET.bottom, bottom);
  view.setUint16(OFFSET.right, right);
  view.setUint16(OFFSET.nCoordinates, n);
  view.setInt32(OFFSET.position, 0);
  view.setInt32(OFFSET.header2Offset, header2);

  const xs = OFFSET.coordinates;
  const ys = OFFSET.coordinates + 2 * n;
  ring.forEach(([x, y], i) => {
    view.setUint16(xs + 2 * i, x - left);
    view.setUint16(ys + 2 * i, y - top);
  });

  view.setInt32(header2 + HEADER2.cPosition, 0);
  view.setInt32(header2 + HEADER2.zPosition, 0);
  view.setInt32(header2 + HEADER2.tPosition, 0);
  if (name.length > 0) {
    view.setInt32(header2 + HEADER2.nameOffset, nameStart);
    view.setInt32(header2 + HEADER2.nameLength, name.length);
    for (let i = 0; i < name.length; i++) view.setUint16(nameStart + 2 * i, name.charCodeAt(i));
  }
  view.setFloat32(header2 + HEADER2.floatStrokeWidth, 0);
  return bytes;
}
