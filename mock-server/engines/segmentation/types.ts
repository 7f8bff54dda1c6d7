import type { Measurements, Ring } from '../geometry/types.js';

/** A label image: 0 is background, objects are numbered 1..count with no gaps. */
export interface LabelImage {
  readonly width: number;
  readonly height: number;
  readonly labels: Int32Array;
  readonly count: number;
}

/** One segmented cell: its label in the label image, its traced outline and its measurements. */
export interface SegmentedObject {
  readonly label: number;
  readonly outline: Ring;
  readonly measurements: Measurements;
}

/** The result every model returns, whatever runs it (CPU threshold, remote GPU worker). */
export interface SegmentationResult {
  readonly width: number;
  readonly height: number;
  /** Objects ordered by label; label i is at index i - 1. */
  readonly objects: SegmentedObject[];
}
