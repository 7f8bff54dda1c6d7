/**
 * measurements.csv opened in a real spreadsheet (LibreOffice Calc, which evaluates formulas in a
 * CSV it opens, as Excel does): a client's image name must come back as text, never run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS, measurementsCsv } from './measurements-csv.js';
import { contextFor, HAND_RESULT } from '../../../test-support/exporters/fixtures.js';
import { cellsAsSpreadsheetShows, libreofficeMissing } from '../../../test-support/exporters/libreoffice.js';

const missing = libreofficeMissing();
// CI installs LibreOffice (.ci/run): there a missing judge is a failure, not a skip.
const skip = missing !== null && !process.env.CI;

const NAMES = ['=1+1.tif', '+1+1.tif', '-1+1.tif', '@SUM(1;1).tif', '\t=1+1.tif'];

describe.skipIf(skip)(`measurements.csv in LibreOffice Calc${skip ? ` (skipped: ${missing})` : ''}`, () => {
  let exported: string[][];
  let unprotected: string[][];
  beforeAll(() => {
    const csv = NAMES.map((imageName) => measurementsCsv(contextFor(HAND_RESULT, { imageName }), CSV_COLUMNS))
      .map((text, i) => (i === 0 ? text : text.slice(text.indexOf('\r\n') + 2)))
      .join('');
    [exported, unprotected] = cellsAsSpreadsheetShows([csv, 'image_name,area_px\r\n=1+1,3\r\n']);
  }, 300_000);

  it('shows an image named =1+1.tif (and the other formula starts) as text on every row', () => {
    const [header, ...rows] = exported;
    expect(header).toEqual([...CSV_COLUMNS]);
    const shown = new Set(rows.map((row) => row[header.indexOf('image_name')]));
    // Calc shows the apostrophe of a CSV cell as written: the name, marked as text, not run.
    expect([...shown].sort()).toEqual(NAMES.map((name) => `'${name}`).sort());
    expect(rows.every((row) => /^\d+$/.test(row[header.indexOf('area_px')]))).toBe(true);
  });

  it('runs the same name as a formula without the apostrophe (so the judge can tell)', () => {
    expect(unprotected[1]).toEqual(['2', '3']);
  });
});
