import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, measurementsCsv } from './measurements-csv.js';
import { spreadsheetSafe } from './spreadsheet-safe.js';
import { contextFor, HAND_RESULT } from '../../../test-support/exporters/fixtures.js';

describe('spreadsheetSafe', () => {
  it.each(['=1+1.tif', '+cmd', '-2+3', '@SUM(A1)', '\t=1+1', '\r=1+1'])(
    'starts %j, which a spreadsheet would run, with an apostrophe',
    (text) => expect(spreadsheetSafe(text)).toBe(`'${text}`),
  );

  it.each(['cells.tif', '', ' =1+1', "'=1+1", 'a=b', 'µm "A1"'])('leaves %j as it is', (text) =>
    expect(spreadsheetSafe(text)).toBe(text),
  );
});

describe('measurements.csv text cells', () => {
  it('neutralises a formula in the image name on every row, and leaves the numbers alone', () => {
    const ctx = contextFor(HAND_RESULT, { imageName: '=HYPERLINK("http://x","y")', modelName: '@model' });
    const [header, ...rows] = parseCsv(measurementsCsv(ctx, CSV_COLUMNS)) as string[][];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row[header.indexOf('image_name')]).toBe('\'=HYPERLINK("http://x","y")');
      expect(row[header.indexOf('model_name')]).toBe("'@model");
      expect(row[header.indexOf('area_px')]).toMatch(/^\d+$/);
    }
  });
});
