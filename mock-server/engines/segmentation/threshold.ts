/**
 * Binary mask from a grey plane and a threshold.
 *
 * Reference: the convention of skimage.filters (image > threshold_otsu(image) selects the bright
 * class). 'bright' objects on a dark background: value > t. 'dark' objects on a bright background:
 * value <= t, the complement, so the two polarities partition the pixels.
 */
import { otsuThreshold } from './otsu.js';

export type Polarity = 'bright' | 'dark';

/** Returns a Uint8Array of 0/1. */
export function thresholdMask(
  data: Uint8Array | Uint16Array,
  threshold: number,
  polarity: Polarity,
): Uint8Array {
  const n = data.length;
  const mask = new Uint8Array(n);
  if (polarity === 'bright') {
    for (let i = 0; i < n; i++) mask[i] = data[i] > threshold ? 1 : 0;
  } else if (polarity === 'dark') {
    for (let i = 0; i < n; i++) mask[i] = data[i] <= threshold ? 1 : 0;
  } else {
    throw new Error(`unknown polarity ${String(polarity)}`);
  }
  return mask;
}

/** The Otsu threshold of a plane (otsu.ts) and its mask. */
export function otsuMask(data: Uint8Array | Uint16Array, polarity: Polarity) {
  // thresholdMask refuses an unknown polarity.
  const threshold = otsuThreshold(data);
  return { threshold, mask: thresholdMask(data, threshold, polarity) };
}
