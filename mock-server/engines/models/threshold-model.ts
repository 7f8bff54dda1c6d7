import type { Plane } from '../raster/plane.js';
import { segmentByThreshold, type ThresholdParams } from '../segmentation/threshold-segmenter.js';
import type { SegmentationResult } from '../segmentation/types.js';
import type { SegmentationModel } from './segmentation-model.js';

/** The deterministic CPU stand-in for a GPU model. */
export class ThresholdModel implements SegmentationModel {
  constructor(
    readonly name: string,
    readonly version: string,
    private readonly params: ThresholdParams,
  ) {}

  async segment(plane: Plane, signal: AbortSignal): Promise<SegmentationResult> {
    return segmentByThreshold(plane, this.params, signal);
  }
}
