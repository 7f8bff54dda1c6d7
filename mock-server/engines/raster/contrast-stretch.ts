/**
 * Percentile contrast stretch to 8 bits, for previews.
 *
 *   stretchToUint8(plane, lowPercentile = 0.5, highPercentile = 99.5): Uint8Array
 *
 * The values at the low and high percentiles (from an exact histogram: one bin per value) map to
 * 0 and 255, linearly, clamped outside. Microscopy data rarely fills its bit depth (a 16-bit camera
 * image may sit in 100..3,000), so a plain bit shift would give a black preview. A flat image gives
 * all zeros.
 */
import type { Plane } from './plane.js';

export function percentileRange(plane: Plane, lowPercentile = 0.5, highPercentile = 99.5) {
  const { data } = plane;
  if (data.length === 0) return { low: 0, high: 0 };
  const bins = plane.bitsPerSample === 8 ? 256 : 65536;
  const hist = new Float64Array(bins);
  for (let i = 0; i < data.length; i++) hist[data[i]]++;
  const total = data.length;
  const find = (p: number) => {
    const target = (Math.min(100, Math.max(0, p)) / 100) * total;
    let acc = 0;
    for (let b = 0; b < bins; b++) {
      acc += hist[b];
      if (acc >= target && acc > 0) return b;
    }
    return bins - 1;
  };
  return { low: find(lowPercentile), high: find(highPercentile) };
}

export function stretchToUint8(plane: Plane, lowPercentile = 0.5, highPercentile = 99.5): Uint8Array {
  const { low, high } = percentileRange(plane, lowPercentile, highPercentile);
  const out = new Uint8Array(plane.data.length);
  if (!(high > low)) return out;
  const k = 255 / (high - low);
  // One entry per possible value: a lookup per pixel instead of a multiply and a clamp.
  const lut = new Uint8Array(plane.bitsPerSample === 8 ? 256 : 65536);
  for (let v = 0; v < lut.length; v++) {
    const s = Math.round((v - low) * k);
    lut[v] = s < 0 ? 0 : s > 255 ? 255 : s;
  }
  const d = plane.data;
  for (let i = 0; i < d.length; i++) out[i] = lut[d[i]];
  return out;
}
