/**
 * Percentile contrast stretch to 8 bits, for previews.
 *
 *   stretchToUint8(plane, lowPercentile = 0.5, highPercentile = 99.5): Uint8Array
 *
 * The values at the low and high percentiles (from an exact histogram: one bin per value for 8
 * and 16-bit planes, 65,536 bins between min and max for float planes) map to 0 and 255, linearly,
 * clamped outside. Microscopy data rarely fills its bit depth (a 16-bit camera image may sit in
 * 100..3,000), so a plain bit shift would give a black preview. A flat image gives all zeros.
 */
import type { Plane } from './plane.js';

export function percentileRange(
  plane: Plane,
  lowPercentile = 0.5,
  highPercentile = 99.5,
): { low: number; high: number } {
  const { data } = plane;
  const n = data.length;
  if (n === 0) return { low: 0, high: 0 };
  let bins: number;
  let min = 0;
  let scale = 1;
  if (plane.bitsPerSample === 32) {
    min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = data[i];
      if (v < min) min = v;
      if (v > max) max = v;
    }
    if (!Number.isFinite(min) || !Number.isFinite(max)) return { low: 0, high: 0 };
    bins = 65536;
    scale = max > min ? (bins - 1) / (max - min) : 0;
  } else {
    bins = plane.bitsPerSample === 8 ? 256 : 65536;
  }
  const hist = new Float64Array(bins);
  if (plane.bitsPerSample === 32) {
    for (let i = 0; i < n; i++) {
      const v = data[i];
      if (Number.isFinite(v)) hist[Math.floor((v - min) * scale)]++;
    }
  } else {
    for (let i = 0; i < n; i++) hist[data[i]]++;
  }
  const total = hist.reduce((a, b) => a + b, 0);
  const find = (p: number) => {
    const target = (Math.min(100, Math.max(0, p)) / 100) * total;
    let acc = 0;
    for (let b = 0; b < bins; b++) {
      acc += hist[b];
      if (acc >= target && acc > 0) return b;
    }
    return bins - 1;
  };
  const toValue = (b: number) => (plane.bitsPerSample === 32 ? (scale ? min + b / scale : min) : b);
  return { low: toValue(find(lowPercentile)), high: toValue(find(highPercentile)) };
}

export function stretchToUint8(plane: Plane, lowPercentile = 0.5, highPercentile = 99.5): Uint8Array {
  const { low, high } = percentileRange(plane, lowPercentile, highPercentile);
  const out = new Uint8Array(plane.data.length);
  if (!(high > low)) return out;
  const k = 255 / (high - low);
  const map = (v: number) => {
    const s = Math.round((v - low) * k);
    return s < 0 ? 0 : s > 255 ? 255 : s;
  };
  if (plane.bitsPerSample === 32) {
    const d = plane.data;
    for (let i = 0; i < d.length; i++) out[i] = Number.isFinite(d[i]) ? map(d[i]) : 0;
    return out;
  }
  const lut = new Uint8Array(plane.bitsPerSample === 8 ? 256 : 65536);
  for (let v = 0; v < lut.length; v++) lut[v] = map(v);
  const d = plane.data;
  for (let i = 0; i < d.length; i++) out[i] = lut[d[i]];
  return out;
}
