/**
 * Random segmentation results for the exporter tests, built by the project's own pipeline
 * (`segmentation/label-image-to-result.ts`: repair, trace, measure), so the interop tests also judge
 * the real tracer and measurements against ImageJ. `labels` is the repaired label image the outlines
 * were traced from. With `simple: false` the blobs may have holes and pinch vertices, which the
 * pipeline must repair; `tracer: 'test'` uses the test-only tracer of fixtures.ts instead.
 */
import { labelImageToResult } from '../../mock-server/engines/segmentation/label-image-to-result.js';
import type { LabelImage, SegmentationResult } from '../../mock-server/engines/segmentation/types.js';
import { randomLabelImage, resultFromLabels } from './fixtures.js';

export interface RandomResultOptions {
  cols?: number;
  rows?: number;
  simple?: boolean;
  tracer?: 'project' | 'test';
}

export function randomResult(
  seed: number,
  { cols = 20, rows = 18, simple = true, tracer = 'project' }: RandomResultOptions = {},
): { result: SegmentationResult; labels: LabelImage } {
  const image = randomLabelImage(seed, cols, rows, 10, simple);
  if (tracer === 'test') return { result: resultFromLabels(image), labels: image };
  const { result, labels } = labelImageToResult(image);
  return { result, labels };
}
