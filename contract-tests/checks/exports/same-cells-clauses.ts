/** That the four exports describe the same cells, in the same order (EXP-09, MEAS-06). */
import { expect } from 'vitest';
import type { CheckContext } from '../../harness/check.js';
import { bounds } from '../../harness/geometry.js';
import type { DecodedRoi } from '../../harness/imagej-roi.js';
import type { FetchedExports } from './fetched-exports.js';

/**
 * Row i, feature i and entry i are the same cell (MEAS-06 checks that separately): `count` cells
 * are in all three, `ring(i)` is feature i's outline.
 */
export function cellsInOrder({ rows, features, rois }: FetchedExports) {
  return {
    count: Math.min(rows.length, features.length, rois.length),
    ring: (i: number) => features[i].geometry.coordinates[0],
  };
}

/** EXP-09: every feature and every ROI entry is a CSV row, and the columns they share say the same. */
export async function verifyExportsAgree(
  ctx: CheckContext,
  { rows, measured, features, rois }: FetchedExports,
): Promise<void> {
  const rowById = new Map(rows.map((r, i) => [r.roi_id, measured[i]]));
  await ctx.verify('EXP-09', () => {
    const rowOf = new Map(rows.map((r) => [r.roi_id, r]));
    for (const feature of features) {
      const roiId = String(feature.properties.roi_id ?? feature.id);
      expect(rowById.has(roiId), `feature ${roiId} is a CSV row`).toBe(true);
      if (feature.id !== undefined && feature.properties.roi_id !== undefined)
        expect(feature.id, `rois.geojson: feature id against its properties.roi_id`).toBe(
          feature.properties.roi_id,
        );
      // the columns a feature also carries as properties say the same of the same cell
      const row = rowOf.get(roiId);
      for (const column of ['cell_type', 'entity_type', 'tags'])
        if (row && feature.properties[column] !== undefined)
          expect(row[column], `measurements.csv ${column} of ${roiId} against its GeoJSON feature`).toBe(
            csvCell(feature.properties[column]),
          );
    }
    const boxes = new Set(measured.map((r) => `${r.bbox_x},${r.bbox_y},${r.bbox_w},${r.bbox_h}`));
    for (const roi of rois)
      expect(
        boxes.has(`${roi.left},${roi.top},${roi.right - roi.left},${roi.bottom - roi.top}`),
        `${roi.entryName} bounds match a CSV row`,
      ).toBe(true);
  });
}

/** MEAS-06: rows, features and ROI entries come in the same order, the entries named as ImageJ names them. */
export async function verifyCellOrder(ctx: CheckContext, got: FetchedExports): Promise<void> {
  const { rows, measured, features, rois } = got;
  const { count, ring } = cellsInOrder(got);
  await ctx.verify('MEAS-06', () => {
    expect(
      measured.map((r) => r.roi_index),
      'roi_index in row order',
    ).toEqual(rows.map((_, i) => i + 1));
    expect(
      features.map((f) => String(f.properties.roi_id ?? f.id)),
      'feature order',
    ).toEqual(rows.map((r) => r.roi_id));
    const labels = roiManagerLabels(rois);
    expect(
      rois.map((r) => r.entryName),
      'entry names',
    ).toEqual(labels.map((l) => `${l}.roi`));
    for (let i = 0; i < count; i++) {
      const b = bounds(ring(i));
      expect([rois[i].left, rois[i].top], `entry ${i + 1} is row ${i + 1}'s cell`).toEqual([b.x, b.y]);
      if (features[i].properties.roi_index !== undefined)
        expect(features[i].properties.roi_index, `feature ${i + 1} roi_index`).toBe(i + 1);
    }
  });
}

/** A GeoJSON property as the CSV writes it: text as it is, a list joined with ';'. */
function csvCell(value: unknown): string {
  return Array.isArray(value) ? value.join(';') : String(value);
}

/**
 * The names ImageJ's RoiManager gives ROIs: "yyyy-xxxx" from the centre of the bounds (integer
 * halves), repeats suffixed -1, -2.
 */
function roiManagerLabels(rois: DecodedRoi[]): string[] {
  const seen = new Map<string, number>();
  return rois.map((roi) => {
    const xc = roi.left + Math.floor((roi.right - roi.left) / 2);
    const yc = roi.top + Math.floor((roi.bottom - roi.top) / 2);
    const digits = (v: number) => String(Math.max(0, v)).padStart(4, '0');
    const label = `${digits(yc)}-${digits(xc)}`;
    const count = seen.get(label) ?? 0;
    seen.set(label, count + 1);
    return count ? `${label}-${count}` : label;
  });
}
