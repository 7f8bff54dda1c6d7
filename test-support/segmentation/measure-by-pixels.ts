import type { Measurements, Ring } from '../../mock-server/engines/geometry/types.js';
import { tracedPerimeter } from '../../mock-server/engines/geometry/measure.js';
import type { LabelImage } from '../../mock-server/engines/segmentation/types.js';

/**
 * The tests' reference for measureObjects (measure.ts): the same measurements from one pass over
 * the label image (ImageStatistics' definitions read literally); `outlines[label - 1]` gives the
 * perimeter.
 */
export function measureObjectsByPixels(image: LabelImage, outlines: readonly Ring[]): Measurements[] {
  const { width, height, labels, count } = image;
  if (outlines.length !== count)
    throw new Error(`measureObjects: ${outlines.length} outlines for ${count} labels`);
  const area = new Float64Array(count + 1);
  const sumX = new Float64Array(count + 1);
  const sumY = new Float64Array(count + 1);
  const minX = new Int32Array(count + 1).fill(width);
  const minY = new Int32Array(count + 1).fill(height);
  const maxX = new Int32Array(count + 1).fill(-1);
  const maxY = new Int32Array(count + 1).fill(-1);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const l = labels[row + x];
      if (l === 0) continue;
      area[l]++;
      sumX[l] += x;
      sumY[l] += y;
      if (x < minX[l]) minX[l] = x;
      if (x > maxX[l]) maxX[l] = x;
      if (y < minY[l]) minY[l] = y;
      maxY[l] = y;
    }
  }
  const result: Measurements[] = new Array(count);
  for (let l = 1; l <= count; l++) {
    const a = area[l];
    result[l - 1] = {
      areaPx: a,
      perimeterPx: tracedPerimeter(outlines[l - 1]),
      centroidX: sumX[l] / a + 0.5,
      centroidY: sumY[l] / a + 0.5,
      bbox: { x: minX[l], y: minY[l], width: maxX[l] - minX[l] + 1, height: maxY[l] - minY[l] + 1 },
    };
  }
  return result;
}
