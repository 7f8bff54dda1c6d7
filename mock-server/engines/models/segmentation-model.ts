import type { Plane } from '../raster/plane.js';
import type { SegmentationResult } from '../segmentation/types.js';

/**
 * What every model implements, the CPU threshold segmenter and a real GPU model alike: a decoded
 * plane in, labelled objects with outlines out, cancellable through the signal.
 */
export interface SegmentationModel {
  readonly name: string;
  readonly version: string;
  segment(plane: Plane, signal: AbortSignal): Promise<SegmentationResult>;
}
