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
import { ringBounds } from './roi-names.js';

const MAX_SHORT_VALUE = 60535;

/** The `.roi` bytes of one traced outline (vertex order kept: ImageJ's perimeter depends on it). */
export function encodeTracedRoi(ring: Ring, name: string): Uint8Array {
  const n = ring.length;
  if (n < 3) throw new RangeError(`an outline needs at least 3 vertices, got ${n}`);
  if (n > MAX_SHORT_VALUE)
    throw new RangeError(`outline has ${n} vertices; ImageJ .roi holds at most ${MAX_SHORT_VALUE}`);
  for (const [x, y] of ring) {
    if (
      !Number.isInteger(x) ||
      !Number.isInteger(y) ||
      Math.min(x, y) < 0 ||
      Math.max(x, y) > MAX_SHORT_VALUE
    )
      throw new RangeError(`outline vertex (${x}, ${y}) is not an integer in 0..${MAX_SHORT_VALUE}`);
  }
  const { x: left, y: top, width, height } = ringBounds(ring);
  // The buffer starts zeroed: only the fields that are not 0 are written (offsets as in the layout above).
  const header2 = 64 + 4 * n;
  const nameStart = header2 + 64;
  const bytes = new Uint8Array(nameStart + 2 * name.length);
  const view = new DataView(bytes.buffer);
  bytes.set([73, 111, 117, 116], 0); // "Iout"
  view.setUint16(4, 228); // version
  view.setUint8(6, 8); // type: traced
  view.setUint16(8, top);
  view.setUint16(10, left);
  view.setUint16(12, top + height);
  view.setUint16(14, left + width);
  view.setUint16(16, n);
  view.setInt32(60, header2);
  ring.forEach(([x, y], i) => {
    view.setUint16(64 + 2 * i, x - left);
    view.setUint16(64 + 2 * n + 2 * i, y - top);
  });
  if (name.length > 0) {
    view.setInt32(header2 + 16, nameStart);
    view.setInt32(header2 + 20, name.length);
    for (let i = 0; i < name.length; i++) view.setUint16(nameStart + 2 * i, name.charCodeAt(i));
  }
  return bytes;
}
