import sharp from 'sharp';
import { pixelsInside, type Ring } from './geometry.js';

export interface OverlayComparison {
  width: number;
  height: number;
  /** Pixels that are not grey (R, G and B not all equal): what was drawn over a grey image. */
  drawn: number;
  /** Expected outline pixels (cell pixels with a 4-neighbour outside the cell). */
  expected: number;
  /** Drawn pixels with no expected outline pixel within one pixel (8-neighbourhood). */
  strayDrawn: number;
  /** Expected outline pixels that are grey in the overlay. */
  missing: number;
  /** Mean grey of the undrawn pixels inside the cells. */
  cellMean: number;
  /**
   * Columns whose undrawn background (outside every cell) is on average at least as bright as the
   * cells' mean: on a bright-on-dark sample the overlay's grey is the image, so no column may flip.
   */
  brightBackgroundColumns: number[];
}

/**
 * Compares an overlay PNG of a grey image with the outlines of the rings: a drawn (non-grey) pixel
 * belongs where a ring is. Decoding is sharp's (the same libvips a user's viewer would use).
 */
export async function compareOverlay(png: Buffer, rings: Ring[], width: number, height: number) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const result: OverlayComparison = {
    width: info.width,
    height: info.height,
    drawn: 0,
    expected: 0,
    strayDrawn: 0,
    missing: 0,
    cellMean: 0,
    brightBackgroundColumns: [],
  };
  if (info.width !== width || info.height !== height) return result;
  const outline = new Uint8Array(width * height);
  const insideCell = new Uint8Array(width * height);
  for (const ring of rings) {
    const cell = new Set(pixelsInside(ring, width, height));
    for (const index of cell) insideCell[index] = 1;
    for (const index of cell) {
      const x = index % width;
      const y = (index - x) / width;
      const edge =
        x === 0 ||
        y === 0 ||
        x === width - 1 ||
        y === height - 1 ||
        !cell.has(index - 1) ||
        !cell.has(index + 1) ||
        !cell.has(index - width) ||
        !cell.has(index + width);
      if (edge) outline[index] = 1;
    }
  }
  const channels = info.channels;
  let cellSum = 0;
  let cellCount = 0;
  const background = Array.from({ length: width }, () => ({ sum: 0, count: 0 }));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const index = y * width + x;
      const p = index * channels;
      const isDrawn = channels >= 3 && (data[p] !== data[p + 1] || data[p + 1] !== data[p + 2]);
      if (outline[index]) {
        result.expected++;
        if (!isDrawn) result.missing++;
      }
      if (!isDrawn) {
        const grey = data[p];
        if (insideCell[index]) {
          cellSum += grey;
          cellCount++;
        } else {
          background[x].sum += grey;
          background[x].count++;
        }
        continue;
      }
      result.drawn++;
      let near = false;
      for (let dy = -1; dy <= 1 && !near; dy++)
        for (let dx = -1; dx <= 1 && !near; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx >= 0 && ny >= 0 && nx < width && ny < height && outline[ny * width + nx]) near = true;
        }
      if (!near) result.strayDrawn++;
    }
  }
  result.cellMean = cellCount ? cellSum / cellCount : 0;
  // a few pixels between cells are no background to judge a column by
  background.forEach(({ sum, count }, x) => {
    if (count >= 4 && sum / count >= result.cellMean) result.brightBackgroundColumns.push(x);
  });
  return result;
}
