import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check, type CheckContext } from '../harness/check.js';
import { OpenApiContract } from '../harness/openapi-contract.js';
import { csvRecords, pngInfo, signedArea2, zipRois } from '../harness/file-formats.js';
import { completedSegmentation } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';

/** The CSV columns, as the document lists them for the `columns` parameter. */
const COLUMNS = csvColumnsOf(new OpenApiContract());

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

interface Feature {
  type: string;
  id?: string;
  geometry: { type: string; coordinates: number[][][] };
  properties: Record<string, unknown>;
}

check(
  'the four exports describe the same cells, and each is a readable file of its kind',
  { clauses: ['EXP-01', 'EXP-04', 'EXP-05', 'EXP-06', 'EXP-07', 'EXP-08', 'EXP-09'] },
  async (ctx) => {
    const sample = presetTiff('easy-8bit-256');
    const { segmentationId, cellCount } = await completedSegmentation(ctx, sample.bytes);
    const params = { segmentation_id: segmentationId };

    const csv = await ctx.api.call<Buffer>('exportMeasurementsCsv', { params });
    expect(csv.status).toBe(200);
    expect(csv.contentType).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment;\s*filename=".+_measurements\.csv"/);
    const { header, rows } = csvRecords(csv.bytes);
    expect(header).toEqual(COLUMNS);
    expect(rows).toHaveLength(cellCount);
    expect(new Set(rows.map((r) => r.roi_id)).size).toBe(cellCount);
    for (const row of rows) {
      expect(row.segmentation_id).toBe(segmentationId);
      expect(Number(row.image_width)).toBe(sample.width);
      expect(Number(row.image_height)).toBe(sample.height);
    }

    const geo = await ctx.api.call<{ type: string; features: Feature[] }>('exportRoisGeojson', { params });
    expect(geo.status).toBe(200);
    expect(geo.contentType).toMatch(/^application\/geo\+json/);
    expect(geo.headers.get('content-disposition')).toMatch(/^attachment;/);
    const features = (
      typeof geo.body === 'object' && !Buffer.isBuffer(geo.body)
        ? geo.body
        : JSON.parse(geo.bytes.toString('utf8'))
    ).features as Feature[];
    expect(features).toHaveLength(cellCount);
    const areaById = new Map(rows.map((r) => [r.roi_id, Number(r.area_px)]));
    for (const feature of features) {
      expect(feature.geometry.type).toBe('Polygon');
      const ring = feature.geometry.coordinates[0];
      expect(ring[0]).toEqual(ring[ring.length - 1]);
      for (const [x, y] of ring) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(sample.width);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(y).toBeLessThanOrEqual(sample.height);
      }
      const roiId = String(feature.properties.roi_id ?? feature.id);
      expect(areaById.has(roiId), `feature ${roiId} is a CSV row`).toBe(true);
      expect(Math.abs(signedArea2(ring)) / 2).toBeCloseTo(areaById.get(roiId)!, 6);
    }

    const zip = await ctx.api.call<Buffer>('exportRoisZip', { params });
    expect(zip.status).toBe(200);
    expect(zip.contentType).toMatch(/^application\/zip/);
    expect(zip.headers.get('content-disposition')).toMatch(/^attachment;/);
    const rois = await zipRois((await binaryBody(ctx, 'exportRoisZip', params, zip.bytes)).bytes);
    expect(rois).toHaveLength(cellCount);
    for (const roi of rois) expect(roi.name).toMatch(/\.roi$/);
    const boxes = new Set(rows.map((r) => `${r.bbox_x},${r.bbox_y},${r.bbox_w},${r.bbox_h}`));
    for (const roi of rois) {
      expect(
        boxes.has(`${roi.left},${roi.top},${roi.right - roi.left},${roi.bottom - roi.top}`),
        `${roi.name} bounds match a CSV row`,
      ).toBe(true);
    }

    const png = await ctx.api.call<Buffer>('exportOverlayPng', { params });
    expect(png.status).toBe(200);
    expect(png.contentType).toBe('image/png');
    expect(png.headers.get('content-disposition')).toMatch(/^attachment;/);
    const info = pngInfo((await binaryBody(ctx, 'exportOverlayPng', params, png.bytes)).bytes);
    expect(info.colorType).toBe(2);
    expect(info.bitDepth).toBe(8);
    expect([info.width, info.height]).toEqual([sample.width, sample.height]);
  },
);

check('the columns parameter selects and orders CSV columns', { clauses: ['EXP-02'] }, async (ctx) => {
  const { segmentationId, cellCount } = await completedSegmentation(ctx, presetTiff().bytes);
  const response = await ctx.api.call<Buffer>('exportMeasurementsCsv', {
    params: { segmentation_id: segmentationId },
    query: { columns: ['roi_id', 'area_px', 'image_name'] },
  });
  expect(response.status).toBe(200);
  const { header, rows } = csvRecords(response.bytes);
  expect(header).toEqual(['roi_id', 'area_px', 'image_name']);
  expect(rows).toHaveLength(cellCount);
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
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    const detail = JSON.stringify(response.body.detail);
    expect(detail).toContain('areaa');
    expect(detail).toContain('bogus_col');
    for (const column of COLUMNS) expect(detail).toContain(column);
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
    expect(response.status, operationId).toBe(404);
    expect(typeof response.body.detail).toBe('string');
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
