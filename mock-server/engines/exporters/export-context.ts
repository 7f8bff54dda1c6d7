/**
 * What every export of one segmentation needs, and the conventions the four exporters share.
 *
 * Conventions (the same in the CSV, the GeoJSON, the ImageJ ROI zip and the overlay):
 * - ROI order is the order of `result.objects` (label order); `roiIds[i]` belongs to `objects[i]`.
 * - `roi_index` is 1-based: the object at position i has roi_index i + 1, which is also its label in
 *   the label image and its row number in ImageJ's ROI Manager and Results table.
 * - ROI names follow ImageJ's RoiManager (`yyyy-xxxx` from the centre of the bounds), made unique
 *   with `-1`, `-2` suffixes (see `roi-names.ts`); the zip entry is `<name>.roi` and the GeoJSON
 *   feature's `name` is the same string.
 * - The mock's models classify nothing: every ROI is written with `cell_type` "cell", no `tags`
 *   (an empty cell in the CSV, `[]` in GeoJSON) and `entity_type` "cell".
 * - Coordinates are image pixels (pixel-corner convention of `geometry/types.ts`), so the result must
 *   have the image's width and height; a mismatch is a programming error and throws.
 */
import type { SegmentationResult } from '../segmentation/types.js';

export interface ExportContext {
  readonly imageName: string;
  readonly imageWidth: number;
  readonly imageHeight: number;
  readonly segmentationId: string;
  readonly segmentationSource: string;
  readonly modelName: string;
  readonly result: SegmentationResult;
  /** One UUID per object, in the same order as `result.objects`. */
  readonly roiIds: readonly string[];
}

export const CELL_TYPE = 'cell';
export const ENTITY_TYPE = 'cell';

/** Throws when the context cannot be exported consistently; every exporter calls it first. */
export function assertExportable(ctx: ExportContext): void {
  const { result } = ctx;
  if (
    !Number.isInteger(ctx.imageWidth) ||
    ctx.imageWidth < 1 ||
    !Number.isInteger(ctx.imageHeight) ||
    ctx.imageHeight < 1
  ) {
    throw new RangeError(`image size must be positive integers, got ${ctx.imageWidth}x${ctx.imageHeight}`);
  }
  if (result.width !== ctx.imageWidth || result.height !== ctx.imageHeight) {
    throw new RangeError(
      `segmentation is ${result.width}x${result.height} but the image is ${ctx.imageWidth}x${ctx.imageHeight}`,
    );
  }
  if (ctx.roiIds.length !== result.objects.length) {
    throw new RangeError(`${ctx.roiIds.length} roi ids for ${result.objects.length} objects`);
  }
}

/** 1-based ROI index of the object at array position `position`. */
export function roiIndex(position: number): number {
  return position + 1;
}

/** Percent (0-100) of the image area covered by ROIs; objects of a label image never overlap. */
export function confluencyPercent(ctx: ExportContext): number {
  let covered = 0;
  for (const object of ctx.result.objects) covered += object.measurements.areaPx;
  return (100 * covered) / (ctx.imageWidth * ctx.imageHeight);
}
