import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, measurementsCsv, unknownColumns } from './measurements-csv.js';
import { contextFor, HAND_RESULT } from '../../../test-support/exporters/fixtures.js';
import { randomResult } from '../../../test-support/exporters/random-result.js';

const rowsOf = (csv: string): string[][] => parseCsv(csv, { relax_column_count: false }) as string[][];

describe('measurementsCsv', () => {
  it('has the 20 columns of the interface, in its order, as the document lists them', () => {
    const interfaceText = readFileSync(path.resolve('openapi/interface/api-interface.md'), 'utf8');
    const section = interfaceText.split('### CSV measurement columns')[1].split('##')[0];
    const stated = [...section.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(stated).toHaveLength(20);
    expect([...CSV_COLUMNS]).toEqual(stated);
    const doc = parse(readFileSync(path.resolve('openapi/openapi.yaml'), 'utf8')) as {
      paths: Record<
        string,
        { get: { parameters: Array<{ name: string; schema: { items: { enum: string[] } } }> } }
      >;
    };
    const columns = doc.paths['/api/v1/export/{segmentation_id}/measurements.csv'].get.parameters.find(
      (p) => p.name === 'columns',
    );
    expect(columns?.schema.items.enum).toEqual(stated);
  });

  it('writes a header and one row per ROI that parse back to the measurements', () => {
    const ctx = contextFor(HAND_RESULT);
    const [header, ...rows] = rowsOf(measurementsCsv(ctx, CSV_COLUMNS));
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(HAND_RESULT.objects.length);
    const col = (name: string) => header.indexOf(name);
    rows.forEach((row, i) => {
      const m = HAND_RESULT.objects[i].measurements;
      expect(row[col('image_name')]).toBe(ctx.imageName);
      expect(row[col('image_width')]).toBe('20');
      expect(row[col('image_height')]).toBe('16');
      expect(row[col('segmentation_id')]).toBe(ctx.segmentationId);
      expect(row[col('segmentation_source')]).toBe('cpu-threshold');
      expect(row[col('model_name')]).toBe('cyto-base');
      expect(row[col('roi_index')]).toBe(String(i + 1));
      expect(row[col('roi_id')]).toBe(ctx.roiIds[i]);
      expect(row[col('cell_type')]).toBe('cell');
      expect(row[col('tags')]).toBe('');
      expect(row[col('entity_type')]).toBe('cell');
      expect(row[col('area_px')]).toBe(String(m.areaPx));
      expect(row[col('perimeter_px')]).toBe(m.perimeterPx.toFixed(4));
      expect(row[col('centroid_x')]).toBe(m.centroidX.toFixed(4));
      expect(row[col('centroid_y')]).toBe(m.centroidY.toFixed(4));
      expect([col('bbox_x'), col('bbox_y'), col('bbox_w'), col('bbox_h')].map((c) => row[c])).toEqual(
        [m.bbox.x, m.bbox.y, m.bbox.width, m.bbox.height].map(String),
      );
    });
  });

  it('computes confluency as percent of the image covered, the same on every row', () => {
    // 6 + 5 + 15 + 1 = 27 pixels of 20 x 16 = 320
    const [header, ...rows] = rowsOf(measurementsCsv(contextFor(HAND_RESULT), CSV_COLUMNS));
    const c = header.indexOf('confluency');
    expect(new Set(rows.map((r) => r[c]))).toEqual(new Set(['8.4375']));
  });

  it('writes real columns with 4 decimals, integers as integers, CRLF line ends, no BOM', () => {
    const csv = measurementsCsv(contextFor(HAND_RESULT), [
      'roi_index',
      'perimeter_px',
      'centroid_x',
      'area_px',
    ]);
    expect(csv.split('\r\n')).toEqual([
      'roi_index,perimeter_px,centroid_x,area_px',
      '1,7.6569,3.5000,6',
      '2,9.6569,9.1000,5',
      '3,26.1421,12.5000,15',
      '4,2.8284,12.5000,1',
      '',
    ]);
    expect(csv.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('selects and orders columns as requested', () => {
    const csv = measurementsCsv(contextFor(HAND_RESULT), ['bbox_h', 'roi_id', 'image_name']);
    const [header, first] = rowsOf(csv);
    expect(header).toEqual(['bbox_h', 'roi_id', 'image_name']);
    expect(first).toEqual(['2', '00000000-0000-4000-8000-000000000001', 'plate 1, well "A1" – µm.tif']);
  });

  it('quotes a hostile image name (comma, quotes, CR/LF, non-ASCII) per RFC 4180 and round-trips it', () => {
    const hostile = 'a,b "c"\r\nd\ne – µm 細胞 🧫.tif';
    const csv = measurementsCsv(contextFor(HAND_RESULT, { imageName: hostile }), ['image_name', 'tags']);
    expect(csv).toContain('"a,b ""c""\r\nd\ne – µm 細胞 🧫.tif"');
    const rows = rowsOf(csv);
    expect(rows).toHaveLength(5);
    for (const row of rows.slice(1)) expect(row).toEqual([hostile, '']);
    expect(Buffer.from(csv, 'utf8').toString('utf8')).toBe(csv);
  });

  it('writes every ROI as a cell with no tags: the models classify nothing', () => {
    const csv = measurementsCsv(contextFor(HAND_RESULT), ['cell_type', 'tags', 'entity_type']);
    expect(rowsOf(csv)[1]).toEqual(['cell', '', 'cell']);
  });

  it('writes a row of one empty cell as "", not as a blank line that readers skip as no row', () => {
    const csv = measurementsCsv(contextFor(HAND_RESULT), ['tags']);
    expect(csv).toBe(`tags\r\n${'""\r\n'.repeat(HAND_RESULT.objects.length)}`);
    // pandas and Python's DictReader skip blank lines: the rows must survive a reader that does
    expect(parseCsv(csv, { skip_empty_lines: true })).toHaveLength(HAND_RESULT.objects.length + 1);
  });

  it('writes the header alone when there are no ROIs', () => {
    const empty = { width: 4, height: 3, objects: [] };
    expect(measurementsCsv(contextFor(empty), CSV_COLUMNS)).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
  });

  it('is byte-identical for the same input', async () => {
    const { result } = randomResult(11);
    const a = measurementsCsv(contextFor(result), CSV_COLUMNS);
    const b = measurementsCsv(contextFor(result), CSV_COLUMNS);
    expect(a).toBe(b);
    expect(rowsOf(a)).toHaveLength(result.objects.length + 1);
  });

  it('names unknown columns, once each, and refuses them', () => {
    expect(unknownColumns(['area_px', 'nope', 'Area_px', 'nope'])).toEqual(['nope', 'Area_px']);
    expect(unknownColumns([...CSV_COLUMNS])).toEqual([]);
    expect(() => measurementsCsv(contextFor(HAND_RESULT), ['area_px', 'nope'])).toThrow(
      /nope.*valid: image_name/,
    );
  });

  it('refuses a context whose ids or size do not match the result', () => {
    expect(() => measurementsCsv(contextFor(HAND_RESULT, { roiIds: [] }), CSV_COLUMNS)).toThrow(/roi ids/);
    expect(() => measurementsCsv(contextFor(HAND_RESULT, { imageWidth: 21 }), CSV_COLUMNS)).toThrow(/20x16/);
  });
});
