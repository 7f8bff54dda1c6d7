/**
 * Label image to segmentation result: repair, trace and measure every object, ordered by label.
 *
 * Shared by every model: the CPU threshold pipeline and a remote GPU model that returns a label
 * image. Arbitrary label images are first repaired (repair-labels.ts: each label keeps its largest
 * 4-connected part; holes and enclosed objects go to the enclosing object) so that every outline is
 * a simple ring whose shoelace area equals the object's pixel count. Labels are renumbered 1..n
 * keeping their relative order; the repaired label image is returned alongside so that rasters
 * drawn from it (overlays) agree with the outlines.
 */
import { traceAllOutlines } from '../geometry/trace-outline.js';
import { measureObjects } from '../geometry/measure.js';
import { repairLabelImage } from './repair-labels.js';
import type { LabelImage, SegmentationResult, SegmentedObject } from './types.js';

/**
 * Traces and measures a label image that already satisfies the invariant of repair-labels.ts.
 * `first` (firstPixels of trace-outline.ts), when the caller has it, saves a pass over the image.
 */
export function describeValidLabels(image: LabelImage, first?: Int32Array): SegmentationResult {
  const outlines = traceAllOutlines(image, first);
  const measurements = measureObjects(image, outlines);
  const objects: SegmentedObject[] = new Array(image.count);
  for (let l = 1; l <= image.count; l++) {
    objects[l - 1] = { label: l, outline: outlines[l - 1], measurements: measurements[l - 1] };
  }
  return { width: image.width, height: image.height, objects };
}

/** The result, and the repaired label image it describes. */
export function labelImageToResult(image: LabelImage) {
  if (
    !Number.isInteger(image.width) ||
    !Number.isInteger(image.height) ||
    image.width < 1 ||
    image.height < 1
  ) {
    throw new Error(`label image has invalid size ${image.width} x ${image.height}`);
  }
  const labels = repairLabelImage(image).image;
  return { result: describeValidLabels(labels), labels };
}
