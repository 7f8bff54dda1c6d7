import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { expectStatus } from '../harness/steps.js';
import { csvRecords } from '../harness/file-formats.js';
import { completedSegmentation } from '../harness/flows.js';
import { borderSample, presetTiff } from '../harness/sample-images.js';
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
