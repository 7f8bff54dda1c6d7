/**
 * Otsu's threshold on the full integer histogram.
 *
 * Reference: N. Otsu, "A threshold selection method from gray-level histograms", IEEE Trans. SMC
 * 9(1), 1979; implemented as skimage.filters.threshold_otsu (scikit-image 0.19) computes it for
 * integer images: one bin per integer value from min to max, the between-class variance
 * w1 * w2 * (m1 - m2)^2 evaluated with the same operation order, first maximum wins. The returned
 * threshold t is a pixel value; objects are the pixels with value > t (see threshold.ts). A
 * constant image returns its value.
 */

export function otsuThreshold(data: Uint8Array | Uint16Array): number {
  if (data.length === 0) throw new Error('otsuThreshold: empty image');
  // One pass: the full histogram (256 or 65536 bins), then the threshold from it. Only the
  // occupied range [min, max] counts, so trailing empty bins change nothing.
  const full = histogram(data);
  let min = 0;
  while (full[min] === 0) min++;
  let max = full.length - 1;
  while (full[max] === 0) max--;
  if (min === max) return min;
  // Class 1 is the values min..v, class 2 the values above v; every sum is an exact integer.
  let total = 0;
  let totalSum = 0;
  for (let v = min; v <= max; v++) {
    total += full[v];
    totalSum += full[v] * v;
  }
  let weight1 = 0;
  let sum1 = 0;
  let best = -1;
  let threshold = min;
  for (let v = min; v < max; v++) {
    weight1 += full[v];
    sum1 += full[v] * v;
    const weight2 = total - weight1;
    const d = sum1 / weight1 - (totalSum - sum1) / weight2;
    const variance = weight1 * weight2 * (d * d);
    if (variance > best) {
      best = variance;
      threshold = v;
    }
  }
  return threshold;
}

/**
 * Counts in four interleaved histograms: a smoothed image has runs of equal values, and counting
 * them into one array makes every increment wait for the previous store to the same bin.
 */
function histogram(data: Uint8Array | Uint16Array): Int32Array {
  const bins = data instanceof Uint8Array ? 256 : 65536;
  const partial = new Int32Array(4 * bins);
  const n = data.length;
  const b2 = 2 * bins;
  const b3 = 3 * bins;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    partial[data[i]]++;
    partial[bins + data[i + 1]]++;
    partial[b2 + data[i + 2]]++;
    partial[b3 + data[i + 3]]++;
  }
  for (; i < n; i++) partial[data[i]]++;
  const full = new Int32Array(bins);
  for (let v = 0; v < bins; v++) full[v] = partial[v] + partial[bins + v] + partial[b2 + v] + partial[b3 + v];
  return full;
}
