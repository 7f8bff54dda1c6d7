import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { CSV_COLUMNS as COLUMNS, match, others } from '../edit-helpers.js';
import type { Regression } from '../regression.js';

const CSV = /^\/api\/v1\/export\/[^/]+\/measurements\.csv$/;

/** Square micrometres per pixel at the 0.65 µm pixel size a calibration table defaults to. */
const UM2_PER_PX = 0.65 * 0.65;

function requestedColumns(path: string): string[] {
  return new URL(path, 'http://proxy').searchParams.getAll('columns');
}

/** The CSV measurements export. */
export const CSV_REGRESSIONS: Regression[] = [
  {
    id: 'B-CSV-COLUMNS-FIRST-ONLY',
    area: 'exports',
    description:
      'The `columns` parameter is read as a single value: only the first of the repeated columns is exported',
    violates: '"`measurements.csv` query parameter `columns`: optional, repeated once per column"',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'GET', CSV)) return;
      const url = new URL(exchange.path, 'http://proxy');
      const columns = url.searchParams.getAll('columns');
      if (columns.length < 2) return;
      url.searchParams.delete('columns');
      url.searchParams.append('columns', columns[0]);
      exchange.path = url.pathname + url.search;
    },
  },
  {
    id: 'B-CSV-UNKNOWN-COLUMN-NO-VALID-LIST',
    area: 'exports',
    description:
      'An unknown column is refused with a detail that names it but no longer lists the valid columns',
    violates:
      '"An unknown column yields an error whose `detail` names the unknown column(s) and lists the valid ones."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV) || answer.status < 400 || answer.status === 401) return;
      const unknown = requestedColumns(exchange.path).filter((column) => !COLUMNS.includes(column));
      if (!unknown.length) return;
      answer.body = Buffer.from(
        JSON.stringify({ detail: `Unknown column(s): ${unknown.map((c) => `'${c}'`).join(', ')}` }),
      );
    },
  },
  {
    id: 'B-CSV-LAST-ROW-DROPPED',
    area: 'exports',
    description:
      'The CSV writer loses its last row (an off-by-one in the ROI loop): one row fewer than `cell_count`',
    violates: '"CSV, one row per ROI" / "`cell_count` | integer | number of ROIs detected"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV) || answer.status !== 200) return;
      const text = answer.body.toString('utf8').replace(/\r?\n$/, '');
      const lastBreak = text.lastIndexOf('\n');
      if (lastBreak < 0) return;
      answer.body = Buffer.from(text.slice(0, lastBreak + 1));
    },
  },
  {
    id: 'B-CSV-AREA-IN-MICRONS',
    area: 'exports',
    description: '`area_px` is written in µm² (the pixel count times a default 0.65 µm calibration squared)',
    violates:
      '"CSV measurement columns: ... `area_px`" (the area in pixels; DESIGN: "`area_px` = pixel count")',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV) || answer.status !== 200) return;
      const rows = parse(answer.body, { bom: true }) as string[][];
      const column = rows[0]?.indexOf('area_px') ?? -1;
      if (column < 0 || rows.length < 2) return;
      for (const row of rows.slice(1)) row[column] = (Number(row[column]) * UM2_PER_PX).toFixed(2);
      answer.body = Buffer.from(
        stringify(rows, { record_delimiter: answer.body.includes('\r\n') ? 'windows' : 'unix' }),
      );
    },
  },
  {
    id: 'B-CSV-OTHER-ORG',
    area: 'exports',
    description:
      "The CSV export looks the segmentation up by id alone: another organization's measurements are served",
    violates:
      '"All exports are for a completed segmentation in the caller\'s organization" / "a resource outside it is reported as 404"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', CSV) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const theirs = await state.upstream('GET', exchange.path, { key: org.key });
        if (theirs.status === 200) return void Object.assign(answer, theirs);
      }
    },
  },
];
