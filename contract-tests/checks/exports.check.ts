import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check, type CheckContext } from '../harness/check.js';
import { expectStatus } from '../harness/steps.js';
import { sharedContract, type OpenApiContract } from '../harness/openapi-contract.js';
import { attachmentNames } from '../harness/attachment-names.js';
import { csvRecords, pngInfo } from '../harness/file-formats.js';
import { completedSegmentation } from '../harness/flows.js';
import { area, bounds, centroid, corners, pixelsInside, tracedPerimeter } from '../harness/geometry.js';
import { decodeRoiZip, type DecodedRoi } from '../harness/imagej-roi.js';
import { modelFor } from '../harness/model-choice.js';
import { compareOverlay } from '../harness/overlay-pixels.js';
import { segmentationShortcomings } from '../harness/sample-quality.js';
import { borderSample, presetTiff } from '../harness/sample-images.js';
import type { FeatureCollection, Image } from '../../openapi/generated/client/types.gen.js';

/** The CSV columns, as the document lists them for the `columns` parameter. */
const COLUMNS = csvColumnsOf(sharedContract());

/**
 * Prism 5.14's proxy re-encodes binary bodies as text; through --via-prism, Prism judges the
 * response above and the bytes are read again straight from the target.
 */
async function binaryBody(
  ctx: CheckContext,
  operationId: string,
  params: Record<string, string>,
  bytes: Buffer,
) {
  if (!ctx.target.viaPrism) return { bytes };
  return ctx.api.call<Buffer>(operationId, { params, baseUrl: ctx.target.directBaseUrl });
}

type Feature = FeatureCollection['features'][number];

check(
  'the four exports describe the same cells of a meaningful sample, and each number means what the conventions say',
  {
    clauses: [
      'SMP-01',
      'EXP-01',
      'EXP-04',
      'EXP-05',
      'EXP-06',
      'EXP-07',
      'EXP-08',
      'EXP-09',
      'MEAS-01',
      'MEAS-02',
      'MEAS-03',
      'MEAS-04',
      'MEAS-05',
      'MEAS-06',
      'MEAS-07',
      'MEAS-08',
      'MEAS-09',
    ],
  },
  async (ctx) => {
    const sample = borderSample();
    const model = await modelFor(ctx.api, { look: sample.look, keepsBorderCells: sample.borderCells > 0 });
    const { segmentationId, cellCount, imageId } = await completedSegmentation(
      ctx,
      sample.bytes,
      ctx.api,
      model.id,
    );
    const params = { segmentation_id: segmentationId };

    const csv = await ctx.api.call<Buffer>('exportMeasurementsCsv', { params });
    expectStatus(csv, 200);
    const { header, rows } = csvRecords(csv.bytes);
    const measured = rows.map(numbers);
    const gate = segmentationShortcomings(measured, sample);
    await ctx.verify('SMP-01', () => {
      expect(gate, `model ${model.name}: the sample's segmentation is too poor to check exports on`).toEqual(
        [],
      );
    });
    if (gate.length) throw new Error(`SMP-01: ${gate.join('; ')} (model ${model.name})`);

    const geo = await ctx.api.call<FeatureCollection>('exportRoisGeojson', { params });
    expectStatus(geo, 200);
    const features = (
      typeof geo.body === 'object' && !Buffer.isBuffer(geo.body)
        ? geo.body
        : JSON.parse(geo.bytes.toString('utf8'))
    ).features as Feature[];
    const zip = await ctx.api.call<Buffer>('exportRoisZip', { params });
    expectStatus(zip, 200);
    const rois = await decodeRoiZip((await binaryBody(ctx, 'exportRoisZip', params, zip.bytes)).bytes);
    const png = await ctx.api.call<Buffer>('exportOverlayPng', {
      params: { ...params },
      query: { fill_opacity: 0 },
    });
    expectStatus(png, 200);
    const image = await ctx.api.call<Image>('getImage', { params: { image_id: imageId } });
    expectStatus(image, 200);

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
      for (const row of rows)
        expect(row.model_name, 'model_name against the model asked for').toBe(model.name);
    });
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
      expect(wrong, `features that are not closed polygons inside the image: ${wrong.join('; ')}`).toEqual(
        [],
      );
    });
    await ctx.verify('EXP-05', () => {
      expect(rois, `rois.zip: entries, one per cell of cell_count ${cellCount}`).toHaveLength(cellCount);
      for (const roi of rois) expect(roi.entryName, 'rois.zip: entry name').toMatch(/\.roi$/);
    });
    await ctx.verify('EXP-07', () => {
      expect(csv.headers.get('content-disposition')).toMatch(
        /^attachment;\s*filename=".+_measurements\.csv"/,
      );
      const named = { 'measurements.csv': csv, 'rois.geojson': geo, 'rois.zip': zip, 'overlay.png': png };
      for (const [exportName, response] of Object.entries(named)) {
        const disposition = response.headers.get('content-disposition') ?? '';
        expect(disposition, `${exportName}: Content-Disposition`).toMatch(/^attachment;/);
        // "<image name>_<export>" (DESIGN.md), the name with or without its .tif extension
        const offered = attachmentNames(disposition);
        const stem = image.body.name.replace(/\.(ome\.)?tiff?$/i, '');
        const expected = [`${stem}_${exportName}`, `${image.body.name}_${exportName}`];
        for (const [form, value] of Object.entries(offered))
          expect(expected, `${exportName}: Content-Disposition ${form} against GET /image name`).toContain(
            value,
          );
      }
    });
    await ctx.verify('EXP-08', () => {
      expect(geo.contentType, 'rois.geojson: content type').toMatch(/^application\/geo\+json/);
      expect(zip.contentType, 'rois.zip: content type').toMatch(/^application\/zip/);
      expect(png.contentType, 'overlay.png: content type').toBe('image/png');
    });
    const pngBytes = (await binaryBody(ctx, 'exportOverlayPng', params, png.bytes)).bytes;
    await ctx.verify('EXP-06', () => {
      const info = pngInfo(pngBytes);
      expect(info.colorType, 'overlay.png: PNG colour type (2, RGB)').toBe(2);
      expect(info.bitDepth, 'overlay.png: bit depth').toBe(8);
    });
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

    // Row i, feature i and entry i are the same cell (MEAS-06 checks that separately); the rest
    // compare each row's numbers with the geometry of its own feature and entry.
    const same = Math.min(rows.length, features.length, rois.length);
    const ring = (i: number) => features[i].geometry.coordinates[0];
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
      for (let i = 0; i < same; i++) {
        const b = bounds(ring(i));
        expect([rois[i].left, rois[i].top], `entry ${i + 1} is row ${i + 1}'s cell`).toEqual([b.x, b.y]);
        if (features[i].properties.roi_index !== undefined)
          expect(features[i].properties.roi_index, `feature ${i + 1} roi_index`).toBe(i + 1);
      }
    });
    await ctx.verify('MEAS-01', () => {
      for (let i = 0; i < same; i++) {
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
    await ctx.verify('MEAS-02', () => {
      for (let i = 0; i < same; i++) {
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
    await ctx.verify('MEAS-03', () => {
      for (let i = 0; i < same; i++) {
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
    await ctx.verify('MEAS-04', () => {
      for (let i = 0; i < same; i++) {
        const expected = tracedPerimeter(rois[i].xs, rois[i].ys);
        expect(
          Math.abs(measured[i].perimeter_px - expected),
          `row ${i + 1}: perimeter_px ${measured[i].perimeter_px} vs traced ${expected}`,
        ).toBeLessThan(1e-3);
      }
    });
    await ctx.verify('MEAS-05', () => {
      const covered = features.reduce((sum, _f, i) => sum + area(ring(i)), 0);
      const percent = (100 * covered) / (sample.width * sample.height);
      expect(new Set(measured.map((r) => r.confluency)).size, 'one confluency on every row').toBe(1);
      expect(
        Math.abs(measured[0].confluency - percent),
        `confluency ${measured[0].confluency} vs ${percent} percent`,
      ).toBeLessThan(1e-3);
    });
    await ctx.verify('MEAS-07', () => {
      const shape = image.body.shape ?? [];
      expect(shape.slice(-2), 'shape [height, width]').toEqual([sample.height, sample.width]);
      for (const row of measured)
        expect([row.image_width, row.image_height], 'measurements.csv: [image_width, image_height]').toEqual([
          sample.width,
          sample.height,
        ]);
    });
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
    await ctx.verify('MEAS-09', () => {
      for (let i = 0; i < same; i++) {
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
  },
);

/** A GeoJSON property as the CSV writes it: text as it is, a list joined with ';'. */
function csvCell(value: unknown): string {
  return Array.isArray(value) ? value.join(';') : String(value);
}

/** The CSV's numeric columns as numbers. */
function numbers(row: Record<string, string>) {
  const n = (name: string) => Number(row[name]);
  return {
    roi_index: n('roi_index'),
    area_px: n('area_px'),
    perimeter_px: n('perimeter_px'),
    centroid_x: n('centroid_x'),
    centroid_y: n('centroid_y'),
    bbox_x: n('bbox_x'),
    bbox_y: n('bbox_y'),
    bbox_w: n('bbox_w'),
    bbox_h: n('bbox_h'),
    confluency: n('confluency'),
    image_width: n('image_width'),
    image_height: n('image_height'),
  };
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

check('the columns parameter selects and orders CSV columns', { clauses: ['EXP-02'] }, async (ctx) => {
  const { segmentationId, cellCount } = await completedSegmentation(ctx, presetTiff().bytes);
  const response = await ctx.api.call<Buffer>('exportMeasurementsCsv', {
    params: { segmentation_id: segmentationId },
    query: { columns: ['roi_id', 'area_px', 'image_name'] },
  });
  expectStatus(response, 200);
  const { header, rows } = csvRecords(response.bytes);
  expect(header, 'measurements.csv?columns=roi_id,area_px,image_name: header').toEqual([
    'roi_id',
    'area_px',
    'image_name',
  ]);
  expect(rows, `measurements.csv?columns=…: rows, one per cell of cell_count ${cellCount}`).toHaveLength(
    cellCount,
  );
});

check(
  'an unknown CSV column is named in the error with the valid ones',
  { clauses: ['EXP-03'] },
  async (ctx) => {
    const { segmentationId } = await completedSegmentation(ctx, presetTiff().bytes);
    const response = await ctx.api.call<{ detail: unknown }>('exportMeasurementsCsv', {
      params: { segmentation_id: segmentationId },
      query: { columns: ['area_px', 'areaa', 'bogus_col'] },
    });
    expectStatus(
      response,
      Array.from({ length: 100 }, (_, i) => 400 + i),
      'measurements.csv with unknown columns answers a 4xx',
    );
    const detail = JSON.stringify(response.body.detail);
    const what = 'measurements.csv with unknown columns: the detail names';
    expect(detail, `${what} 'areaa'`).toContain('areaa');
    expect(detail, `${what} 'bogus_col'`).toContain('bogus_col');
    for (const column of COLUMNS) expect(detail, `${what} the valid column ${column}`).toContain(column);
  },
);

check('exports answer 404 for an unknown segmentation', { clauses: ['EXP-10'] }, async ({ api }) => {
  for (const operationId of [
    'exportMeasurementsCsv',
    'exportRoisGeojson',
    'exportRoisZip',
    'exportOverlayPng',
  ]) {
    const response = await api.call<{ detail: unknown }>(operationId, {
      params: { segmentation_id: randomUUID() },
    });
    expectStatus(response, 404, operationId);
    expect(typeof response.body.detail, `${operationId} 404: type of detail`).toBe('string');
  }
});

function csvColumnsOf(contract: OpenApiContract): string[] {
  const parameters = (contract.operation('exportMeasurementsCsv').raw.parameters ?? []) as Array<{
    name: string;
    schema: { items: { enum: string[] } };
  }>;
  const columns = parameters.find((p) => p.name === 'columns')?.schema.items.enum;
  if (!columns?.length) throw new Error('the document lists no CSV columns for exportMeasurementsCsv');
  return columns;
}
