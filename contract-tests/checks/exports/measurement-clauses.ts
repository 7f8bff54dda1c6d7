/**
 * That each number of measurements.csv means what the conventions say, measured again from the
 * geometry of its own feature and ROI entry, and from the overlay (MEAS-01 to MEAS-05, MEAS-07 to MEAS-09).
 */
import { expect } from 'vitest';
import type { CheckContext } from '../../harness/check.js';
import { area, bounds, centroid, corners, pixelsInside, tracedPerimeter } from '../../harness/geometry.js';
import { compareOverlay } from '../../harness/overlay-pixels.js';
import type { FetchedExports } from './fetched-exports.js';
import { cellsInOrder } from './same-cells-clauses.js';

/** MEAS-01: area_px is the ring's shoelace area, the ROI's, and the pixels inside. */
export async function verifyAreas(ctx: CheckContext, got: FetchedExports): Promise<void> {
  const { measured, rois, sample } = got;
  const { count, ring } = cellsInOrder(got);
  await ctx.verify('MEAS-01', () => {
    for (let i = 0; i < count; i++) {
      const label = `row ${i + 1}`;
      expect(area(ring(i)), `${label}: shoelace area of the ring`).toBe(measured[i].area_px);
      expect(area(rois[i].xs.map((x, k) => [x, rois[i].ys[k]])), `${label}: area of the ROI`).toBe(
        measured[i].area_px,
      );
      expect(pixelsInside(ring(i), sample.width, sample.height).length, `${label}: pixels inside`).toBe(
        measured[i].area_px,
      );
    }
  });
}

/** MEAS-02: centroid_x and centroid_y are the ring's centroid. */
export async function verifyCentroids(ctx: CheckContext, got: FetchedExports): Promise<void> {
  const { measured } = got;
  const { count, ring } = cellsInOrder(got);
  await ctx.verify('MEAS-02', () => {
    for (let i = 0; i < count; i++) {
      const c = centroid(ring(i));
      expect(
        Math.abs(c.x - measured[i].centroid_x),
        `row ${i + 1}: centroid_x ${measured[i].centroid_x} vs ${c.x}`,
      ).toBeLessThan(1e-3);
      expect(
        Math.abs(c.y - measured[i].centroid_y),
        `row ${i + 1}: centroid_y ${measured[i].centroid_y} vs ${c.y}`,
      ).toBeLessThan(1e-3);
    }
  });
}

/** MEAS-03: the bbox columns are the ring's bounds and the ROI's. */
export async function verifyBoundingBoxes(ctx: CheckContext, got: FetchedExports): Promise<void> {
  const { measured, rois } = got;
  const { count, ring } = cellsInOrder(got);
  await ctx.verify('MEAS-03', () => {
    for (let i = 0; i < count; i++) {
      const b = bounds(ring(i));
      const row = measured[i];
      expect([row.bbox_x, row.bbox_y, row.bbox_w, row.bbox_h], `row ${i + 1}: bbox vs the ring`).toEqual([
        b.x,
        b.y,
        b.w,
        b.h,
      ]);
      const roi = rois[i];
      expect(
        [roi.left, roi.top, roi.right - roi.left, roi.bottom - roi.top],
        `row ${i + 1}: bbox vs the ROI`,
      ).toEqual([b.x, b.y, b.w, b.h]);
    }
  });
}

/** MEAS-04: perimeter_px is the traced perimeter of the ROI. */
export async function verifyPerimeters(ctx: CheckContext, got: FetchedExports): Promise<void> {
  const { measured, rois } = got;
  const { count } = cellsInOrder(got);
  await ctx.verify('MEAS-04', () => {
    for (let i = 0; i < count; i++) {
      const expected = tracedPerimeter(rois[i].xs, rois[i].ys);
      expect(
        Math.abs(measured[i].perimeter_px - expected),
        `row ${i + 1}: perimeter_px ${measured[i].perimeter_px} vs traced ${expected}`,
      ).toBeLessThan(1e-3);
    }
  });
}

/** MEAS-05: confluency, the same on every row, is the percent of the image the cells cover. */
export async function verifyConfluency(ctx: CheckContext, got: FetchedExports): Promise<void> {
  const { measured, features, sample } = got;
  const { ring } = cellsInOrder(got);
  await ctx.verify('MEAS-05', () => {
    const covered = features.reduce((sum, _f, i) => sum + area(ring(i)), 0);
    const percent = (100 * covered) / (sample.width * sample.height);
    expect(new Set(measured.map((r) => r.confluency)).size, 'one confluency on every row').toBe(1);
    expect(
      Math.abs(measured[0].confluency - percent),
      `confluency ${measured[0].confluency} vs ${percent} percent`,
    ).toBeLessThan(1e-3);
  });
}

/** MEAS-07: the image's shape and the image_width and image_height columns are the sample's size. */
export async function verifyImageSize(
  ctx: CheckContext,
  { image, measured, sample }: FetchedExports,
): Promise<void> {
  await ctx.verify('MEAS-07', () => {
    const shape = image.body.shape ?? [];
    expect(shape.slice(-2), 'shape [height, width]').toEqual([sample.height, sample.width]);
    for (const row of measured)
      expect([row.image_width, row.image_height], 'measurements.csv: [image_width, image_height]').toEqual([
        sample.width,
        sample.height,
      ]);
  });
}

/** MEAS-08: overlay.png draws the outlines and little else, on a background darker than the cells. */
export async function verifyOverlayPixels(
  ctx: CheckContext,
  { features, sample }: FetchedExports,
  pngBytes: Buffer,
): Promise<void> {
  await ctx.verify('MEAS-08', async () => {
    const overlay = await compareOverlay(
      pngBytes,
      features.map((f) => f.geometry.coordinates[0]),
      sample.width,
      sample.height,
    );
    expect([overlay.width, overlay.height], 'overlay size').toEqual([sample.width, sample.height]);
    expect(
      overlay.strayDrawn,
      `drawn pixels away from every outline, of ${overlay.drawn}`,
    ).toBeLessThanOrEqual(overlay.drawn * 0.01);
    expect(overlay.missing, `outline pixels not drawn, of ${overlay.expected}`).toBeLessThanOrEqual(
      overlay.expected * 0.05,
    );
    expect(
      overlay.brightBackgroundColumns,
      `overlay columns whose background is as bright as the cells (mean ${overlay.cellMean.toFixed(0)}) on a ${sample.look} sample`,
    ).toEqual([]);
  });
}

/** MEAS-09: each ROI is a traced one with its feature's corners, named as its entry. */
export async function verifyRoiShapes(ctx: CheckContext, got: FetchedExports): Promise<void> {
  const { rois } = got;
  const { count, ring } = cellsInOrder(got);
  await ctx.verify('MEAS-09', () => {
    for (let i = 0; i < count; i++) {
      const roi = rois[i];
      expect(roi.type, `${roi.entryName}: traced ROI`).toBe(8);
      const fromRoi = corners(roi.xs, roi.ys);
      const ringPoints = ring(i);
      const fromRing = corners(
        ringPoints.map((p) => p[0]),
        ringPoints.map((p) => p[1]),
      );
      const key = (xs: number[], ys: number[]) => xs.map((x, k) => `${x},${ys[k]}`).sort();
      expect(key(fromRoi.xs, fromRoi.ys), `${roi.entryName}: corners vs feature ${i + 1}`).toEqual(
        key(fromRing.xs, fromRing.ys),
      );
      if (roi.name !== undefined)
        expect(`${roi.name}.roi`, `${roi.entryName}: name in header2`).toBe(roi.entryName);
    }
  });
}
