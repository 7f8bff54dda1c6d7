import { CSV_COLUMNS, isJson, match, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { query } from './tools.js';

/** measurements.csv. */

const CSV = /^\/api\/v1\/export\/([^/]+)\/measurements\.csv$/;

export const CSV_EXPORT: Regression[] = [
  {
    id: 'C-CSV-FORMULA-NOT-NEUTRALISED',
    area: 'exports',
    description:
      'The CSV writer lost its formula guard: an image name starting with `=`, `+`, `-` or `@` is written as is, and a spreadsheet runs it',
    violates:
      'exportMeasurementsCsv 200: "A text cell that a spreadsheet would run as a formula ... is written with a leading apostrophe, OWASP\'s mitigation of CSV injection"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV) || answer.status !== 200) return;
      const text = answer.body.toString('utf8');
      answer.body = Buffer.from(text.replace(/(^|,)("?)'([=+\-@\t\r])/gm, '$1$2$3'));
    },
  },
  {
    id: 'C-CSV-UNKNOWN-FIRST-ONLY',
    area: 'exports',
    description:
      'With several unknown columns, the error names only the first (the check stops at the first miss)',
    violates:
      '"An unknown column yields an error whose `detail` names the unknown column(s) and lists the valid ones."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV) || answer.status < 400 || !isJson(answer)) return;
      const body = readJson(answer);
      if (typeof body.detail !== 'string') return;
      const named = body.detail.match(/^Unknown column\(s\): ('[^']*'(?:, '[^']*')*)\./);
      if (!named) return;
      const first = named[1].split(', ')[0];
      writeJson(answer, { detail: body.detail.replace(named[1], first).replace('column(s)', 'column') });
    },
  },
  {
    id: 'C-CSV-COLUMNS-CASE-FOLDED',
    area: 'exports',
    description:
      'Column names are lower-cased before they are checked: `columns=AREA_PX` is answered as `area_px` instead of refused as unknown',
    violates:
      '"`columns`: optional, repeated once per column, values from the CSV column list in Resources." / "An unknown column yields an error"',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'GET', CSV)) return;
      const url = new URL(exchange.path, 'http://proxy');
      const columns = url.searchParams.getAll('columns');
      const folded = columns.map((c) => (CSV_COLUMNS.includes(c.toLowerCase()) ? c.toLowerCase() : c));
      if (folded.every((c, i) => c === columns[i])) return;
      url.searchParams.delete('columns');
      for (const c of folded) url.searchParams.append('columns', c);
      exchange.path = url.pathname + url.search;
    },
  },
  {
    id: 'C-CSV-DISTINCT-ROWS',
    area: 'exports',
    description:
      'With a `columns` selection the rows are selected DISTINCT: ROIs whose selected values are equal collapse into one row',
    violates: '"`GET /api/v1/export/{segmentation_id}/measurements.csv` | CSV, one row per ROI"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV) || answer.status !== 200 || !query(exchange).has('columns')) return;
      const text = answer.body.toString('utf8');
      const ending = text.includes('\r\n') ? '\r\n' : '\n';
      const lines = text.split(ending);
      const trailing = lines[lines.length - 1] === '' ? lines.pop() : undefined;
      const kept = [lines[0], ...new Set(lines.slice(1))];
      if (trailing !== undefined) kept.push(trailing);
      answer.body = Buffer.from(kept.join(ending));
    },
  },
];
