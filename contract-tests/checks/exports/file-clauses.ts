/**
 * What each export file is on its own: its format, its content type, the name it is offered
 * under, one entry per cell (EXP-01, EXP-04 to EXP-08).
 */
import { expect } from 'vitest';
import { attachmentNames } from '../../model/attachment-names.js';
import type { CheckContext } from '../../harness/check.js';
import { pngInfo } from '../../harness/file-formats.js';
import { COLUMNS } from './csv-columns.js';
import type { FetchedExports } from './fetched-exports.js';

/** EXP-01: measurements.csv has the document's columns, one row per cell, and derived columns true to their source. */
export async function verifyCsvFile(
  ctx: CheckContext,
  { csv, header, rows, cellCount, segmentationId, image, model }: FetchedExports,
): Promise<void> {
  await ctx.verify('EXP-01', () => {
    expect(csv.contentType, 'measurements.csv: content type').toMatch(/^text\/csv/);
    expect(header, 'measurements.csv: header').toEqual(COLUMNS);
    expect(rows, `measurements.csv: rows, one per cell of cell_count ${cellCount}`).toHaveLength(cellCount);
    expect(new Set(rows.map((r) => r.roi_id)).size, 'measurements.csv: distinct roi_id').toBe(cellCount);
    for (const row of rows)
      expect(row.segmentation_id, 'measurements.csv: segmentation_id').toBe(segmentationId);
    // derived columns against their source: the image's name (as safe-to-open writes a formula)
    // and the model the prediction ran
    const name = image.body.name.replace(/^(?=[=+\-@\t\r])/, "'");
    for (const row of rows) expect(row.image_name, 'image_name against GET /image name').toBe(name);
    for (const row of rows) expect(row.model_name, 'model_name against the model asked for').toBe(model.name);
  });
}

/** EXP-04: rois.geojson has one closed polygon per cell, inside the image. */
export async function verifyGeojsonFile(
  ctx: CheckContext,
  { features, cellCount, sample }: FetchedExports,
): Promise<void> {
  await ctx.verify('EXP-04', () => {
    expect(features, `rois.geojson: features, one per cell of cell_count ${cellCount}`).toHaveLength(
      cellCount,
    );
    // What is wrong, gathered and asserted once: an expect() per vertex cost a third of a second
    // per run, and the list names every bad feature instead of the first.
    const wrong: string[] = [];
    const inside = (v: unknown, max: number) => typeof v === 'number' && v >= 0 && v <= max;
    features.forEach((feature, i) => {
      const ring = feature.geometry.coordinates[0];
      if (feature.geometry.type !== 'Polygon')
        wrong.push(`feature ${i + 1}: ${feature.geometry.type}, not Polygon`);
      if (JSON.stringify(ring[0]) !== JSON.stringify(ring.at(-1)))
        wrong.push(
          `feature ${i + 1}: ring not closed, ${JSON.stringify(ring[0])} to ${JSON.stringify(ring.at(-1))}`,
        );
      const outside = ring.filter(([x, y]) => !inside(x, sample.width) || !inside(y, sample.height));
      if (outside.length)
        wrong.push(
          `feature ${i + 1}: ${outside.length} vertices outside the ${sample.width}x${sample.height} image, first ${JSON.stringify(outside[0])}`,
        );
    });
    expect(wrong, `features that are not closed polygons inside the image: ${wrong.join('; ')}`).toEqual([]);
  });
}

/** EXP-05: rois.zip has one .roi entry per cell. */
export async function verifyRoiZipFile(
  ctx: CheckContext,
  { rois, cellCount }: FetchedExports,
): Promise<void> {
  await ctx.verify('EXP-05', () => {
    expect(rois, `rois.zip: entries, one per cell of cell_count ${cellCount}`).toHaveLength(cellCount);
    for (const roi of rois) expect(roi.entryName, 'rois.zip: entry name').toMatch(/\.roi$/);
  });
}

/** EXP-07: every export is offered as an attachment (the interface's words; its name is not shown). */
export async function verifyAttachments(ctx: CheckContext, exports: FetchedExports): Promise<void> {
  await ctx.verify('EXP-07', () => {
    for (const [exportName, response] of Object.entries(namedExports(exports)))
      // the type in any case, and parameters optional (RFC 6266 4.1)
      expect(response.headers.get('content-disposition') ?? '', `${exportName}: Content-Disposition`).toMatch(
        /^attachment[ \t]*(;|$)/i,
      );
  });
}

/** The four exports by the file name each stands for. */
const namedExports = ({ csv, geo, zip, png }: FetchedExports) => ({
  'measurements.csv': csv,
  'rois.geojson': geo,
  'rois.zip': zip,
  'overlay.png': png,
});

/** EXP-08 (the document's): each export is offered under the name "<image name>_<export>". */
export async function verifyAttachmentNames(ctx: CheckContext, exports: FetchedExports): Promise<void> {
  await ctx.verify('EXP-08', () => {
    for (const [exportName, response] of Object.entries(namedExports(exports))) {
      // "<image name>_<export>" (DESIGN.md), the name with or without its .tif extension
      const offered = attachmentNames(response.headers.get('content-disposition') ?? '');
      const stem = exports.image.body.name.replace(/\.(ome\.)?tiff?$/i, '');
      const expected = [`${stem}_${exportName}`, `${exports.image.body.name}_${exportName}`];
      expect(Object.keys(offered).length, `${exportName}: a file name offered`).toBeGreaterThan(0);
      for (const [form, value] of Object.entries(offered))
        expect(expected, `${exportName}: Content-Disposition ${form} against GET /image name`).toContain(
          value,
        );
    }
  });
}

/** EXP-08: the GeoJSON, ZIP and PNG exports say what they are. */
export async function verifyContentTypes(
  ctx: CheckContext,
  { geo, zip, png }: FetchedExports,
): Promise<void> {
  await ctx.verify('EXP-08', () => {
    expect(geo.contentType, 'rois.geojson: content type').toMatch(/^application\/geo\+json/);
    expect(zip.contentType, 'rois.zip: content type').toMatch(/^application\/zip/);
    expect(png.contentType, 'overlay.png: content type').toBe('image/png');
  });
}

/** EXP-06: overlay.png is an 8-bit RGB PNG. */
export async function verifyOverlayPngFile(ctx: CheckContext, pngBytes: Buffer): Promise<void> {
  await ctx.verify('EXP-06', () => {
    const info = pngInfo(pngBytes);
    expect(info.colorType, 'overlay.png: PNG colour type (2, RGB)').toBe(2);
    expect(info.bitDepth, 'overlay.png: bit depth').toBe(8);
  });
}
