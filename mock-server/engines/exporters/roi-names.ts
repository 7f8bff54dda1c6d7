/**
 * ROI names as ImageJ's RoiManager gives them (RoiManager.getLabel, ImageJ 1.54): the centre of the
 * ROI's integer bounds, `xc = x + floor(w / 2)`, `yc = y + floor(h / 2)`, written `yyyy-xxxx`, each
 * zero-padded to 4 digits, or to the length of the longer number when either needs more; 5 digits
 * when the image is 10000 pixels high or more. Single-plane images, so no slice prefix.
 *
 * Two ROIs with the same centre would collide in a zip, so repeats get `-1`, `-2`, ... in ROI order
 * (the first keeps the bare name). A suffixed name has three dash-separated parts and a bare one two,
 * so a suffix can never collide with another ROI's bare name.
 */
import type { BoundingBox, Ring } from '../geometry/types.js';

/** Integer bounds of a ring, as ImageJ's Roi.getBounds() reports them for a traced ROI. */
export function ringBounds(ring: Ring): BoundingBox {
  if (ring.length === 0) throw new RangeError('empty outline');
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of ring) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
}

export function roiManagerLabel(bounds: BoundingBox, imageHeight: number): string {
  const xc = Math.max(0, bounds.x + Math.floor(bounds.width / 2));
  const yc = Math.max(0, bounds.y + Math.floor(bounds.height / 2));
  const xs = String(xc);
  const ys = String(yc);
  let digits = Math.max(4, xs.length, ys.length);
  if (digits === 4 && imageHeight >= 10000) digits = 5;
  return `${ys.padStart(digits, '0')}-${xs.padStart(digits, '0')}`;
}

/** One unique name per outline, in order. */
export function uniqueRoiNames(outlines: readonly Ring[], imageHeight: number): string[] {
  const seen = new Map<string, number>();
  return outlines.map((ring) => {
    const label = roiManagerLabel(ringBounds(ring), imageHeight);
    const repeats = seen.get(label) ?? 0;
    seen.set(label, repeats + 1);
    return repeats === 0 ? label : `${label}-${repeats}`;
  });
}
