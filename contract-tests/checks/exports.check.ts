import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { parse as parseCsv } from 'csv-parse/sync';
import { check, type CheckContext } from '../harness/check.js';
import { expectStatus, need } from '../harness/steps.js';
import { csvRecords } from '../harness/file-formats.js';
import { completedSegmentation, predicted, readyImage } from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { borderSample, flatTiff, presetTiff } from '../harness/sample-images.js';
import { COLUMNS } from './exports/csv-columns.js';
import { binaryBody, fetchExports } from './exports/fetched-exports.js';
import {
  verifyAttachmentNames,
  verifyAttachments,
  verifyContentTypes,
  verifyCsvFile,
  verifyGeojsonFile,
  verifyOverlayPngFile,
  verifyRoiZipFile,
} from './exports/file-clauses.js';
import {
  verifyAreas,
  verifyBoundingBoxes,
  verifyCentroids,
  verifyConfluency,
  verifyImageSize,
  verifyOverlayPixels,
  verifyPerimeters,
  verifyRoiShapes,
} from './exports/measurement-clauses.js';
import { verifyCellOrder, verifyExportsAgree } from './exports/same-cells-clauses.js';

// One segmentation of a meaningful sample serves every clause below: each clause group is judged
// by a function of its own (exports/), in the order the report lists their outcomes.
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
    const got = await fetchExports(ctx, borderSample());
    await verifyCsvFile(ctx, got);
    await verifyGeojsonFile(ctx, got);
    await verifyRoiZipFile(ctx, got);
    await verifyAttachments(ctx, got);
    await verifyAttachmentNames(ctx, got);
    await verifyContentTypes(ctx, got);
    const pngBytes = (await binaryBody(ctx, 'exportOverlayPng', got.params, got.png.bytes)).bytes;
    await verifyOverlayPngFile(ctx, pngBytes);
    await verifyExportsAgree(ctx, got);
    await verifyCellOrder(ctx, got);
    await verifyAreas(ctx, got);
    await verifyCentroids(ctx, got);
    await verifyBoundingBoxes(ctx, got);
    await verifyPerimeters(ctx, got);
    await verifyConfluency(ctx, got);
    await verifyImageSize(ctx, got);
    await verifyOverlayPixels(ctx, got, pngBytes);
    await verifyRoiShapes(ctx, got);
  },
);

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
  // columns whose values are the same on every row: still one row per cell, none merged
  const alike = await ctx.api.call<Buffer>('exportMeasurementsCsv', {
    params: { segmentation_id: segmentationId },
    query: { columns: ['image_name', 'segmentation_id'] },
  });
  expectStatus(alike, 200);
  expect(
    csvRecords(alike.bytes).rows,
    `measurements.csv?columns=image_name,segmentation_id: rows, one per cell of cell_count ${cellCount}`,
  ).toHaveLength(cellCount);
  await emptyColumnsAlone(ctx, segmentationId, cellCount);
});

/**
 * Each column that is empty on every row, selected alone: still one row per cell. A row of one
 * empty cell must be written so (`""`), since a blank line is no record to a CSV reader (pandas,
 * Python's csv, csv-parse's skip_empty_lines); the oracle counts the rows as those readers do.
 */
async function emptyColumnsAlone(ctx: CheckContext, segmentationId: string, cellCount: number) {
  const all = need(
    await ctx.api.call<Buffer>('exportMeasurementsCsv', { params: { segmentation_id: segmentationId } }),
    200,
  );
  const { header, rows } = csvRecords(all.bytes);
  const empty = header.filter((column) => rows.length > 0 && rows.every((row) => row[column] === ''));
  for (const column of empty) {
    const alone = await ctx.api.call<Buffer>('exportMeasurementsCsv', {
      params: { segmentation_id: segmentationId },
      query: { columns: [column] },
    });
    expectStatus(alone, 200, `measurements.csv?columns=${column}`);
    const records = parseCsv(alone.bytes, { bom: true, skip_empty_lines: true }) as string[][];
    expect(
      records.slice(1),
      `measurements.csv?columns=${column} (empty on every row): rows, one per cell of cell_count ${cellCount}`,
    ).toHaveLength(cellCount);
  }
}

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
    // the list is an enum: a valid column spelt in another case is not that column
    const shouted = COLUMNS[COLUMNS.length - 1].toUpperCase();
    const cased = await ctx.api.call<{ detail: unknown }>('exportMeasurementsCsv', {
      params: { segmentation_id: segmentationId },
      query: { columns: ['roi_index', shouted] },
    });
    expectStatus(
      cased,
      Array.from({ length: 100 }, (_, i) => 400 + i),
      `measurements.csv?columns=roi_index,${shouted} answers a 4xx`,
    );
    expect(JSON.stringify(cased.body.detail), `${what} '${shouted}'`).toContain(shouted);
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

check(
  'the exports of a segmentation that found no cell are empty and well-formed: a header-only CSV, a FeatureCollection of no feature, a ZIP of no .roi',
  { clauses: ['EXP-01', 'EXP-04', 'EXP-05'] },
  async (ctx) => {
    // a picture with nothing on it: the one run whose exports have no cell to write, judged by the
    // document's schemas (features is an array) and by the oracle (one entry per cell of the count)
    const imageId = await readyImage(ctx, flatTiff());
    const done = await predicted(ctx, imageId, await fittingModelId(ctx.api), ctx.api);
    const segmentationId = done.status === 'COMPLETED' ? done.segmentation_id : undefined;
    if (!segmentationId)
      return ctx.skip(`the run of a flat picture ended ${done.status}, with no segmentation to export`);
    const params = { segmentation_id: segmentationId };
    const cells = done.cell_count ?? 0;
    const csv = await ctx.api.call<Buffer>('exportMeasurementsCsv', { params });
    await ctx.verify('EXP-01', () => {
      expectStatus(csv, 200, 'measurements.csv of a segmentation of no cell');
      expect(csvRecords(csv.bytes).rows, `measurements.csv: rows, one per cell of ${cells}`).toHaveLength(
        cells,
      );
    });
    const geo = await ctx.api.call<{ features?: unknown }>('exportRoisGeojson', { params });
    await ctx.verify('EXP-04', () => {
      expectStatus(geo, 200, 'rois.geojson of a segmentation of no cell');
      const body = Buffer.isBuffer(geo.body) ? JSON.parse(geo.bytes.toString('utf8')) : geo.body;
      expect(body?.features, `rois.geojson: features, one per cell of ${cells}`).toHaveLength(cells);
    });
    // the ZIP's entries are the oracle's to count against cell_count
    const zip = await ctx.api.call<Buffer>('exportRoisZip', { params });
    await ctx.verify('EXP-05', () => expectStatus(zip, 200, 'rois.zip of a segmentation of no cell'));
  },
);
