import type { MeaningfulSample } from './sample-images.js';

/** The CSV columns the gate reads, as numbers. */
export interface MeasuredRow {
  area_px: number;
  centroid_x: number;
  centroid_y: number;
  bbox_x: number;
  bbox_y: number;
  bbox_w: number;
  bbox_h: number;
}

/**
 * Why a segmentation of a sample is too poor to check exports on, or [] when it is good enough:
 * many cells, of distinct sizes and positions, some cut by the border, none covering the image.
 * On one ROI covering the whole image, row order, indexes, centroids and overlay placement cannot
 * be wrong, so every check of meaning would pass vacuously.
 */
export function segmentationShortcomings(rows: MeasuredRow[], sample: MeaningfulSample): string[] {
  const problems: string[] = [];
  const least = Math.max(10, Math.floor(sample.cells * 0.7));
  if (rows.length < least || rows.length > sample.cells * 2)
    problems.push(
      `${rows.length} cells found where the sample has ${sample.cells} (expected ${least} to ${sample.cells * 2})`,
    );
  const areas = new Set(rows.map((r) => r.area_px));
  if (areas.size < rows.length / 2)
    problems.push(`only ${areas.size} distinct areas among ${rows.length} cells`);
  const positions = new Set(rows.map((r) => `${Math.round(r.centroid_x)},${Math.round(r.centroid_y)}`));
  if (positions.size < rows.length)
    problems.push(`only ${positions.size} distinct centroids among ${rows.length} cells`);
  const imageArea = sample.width * sample.height;
  const huge = rows.filter((r) => r.area_px > imageArea / 4);
  if (huge.length) problems.push(`${huge.length} cell(s) cover more than a quarter of the image`);
  const touching = rows.filter(
    (r) =>
      r.bbox_x === 0 ||
      r.bbox_y === 0 ||
      r.bbox_x + r.bbox_w === sample.width ||
      r.bbox_y + r.bbox_h === sample.height,
  );
  if (sample.borderCells > 0 && touching.length === 0)
    problems.push(`no cell touches the border, where ${sample.borderCells} of the sample's cells do`);
  return problems;
}
