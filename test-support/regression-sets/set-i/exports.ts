import { createHash } from 'node:crypto';
import JSZip from 'jszip';
import type { Answer, Exchange, Regression } from '../regression.js';
import { isJson, match, readJson, writeJson } from '../edit-helpers.js';
import { parseCsv, writeCsv } from './kit.js';

const UUID = '([0-9a-fA-F-]{36})';

/** The export asked (segmentation id and file), or null. */
function exportOf(exchange: Exchange, file?: string): { segmentation: string; file: string } | null {
  const found = match(exchange, 'GET', new RegExp(`^/api/v1/export/${UUID}/([^/]+)$`));
  if (!found || (file && found[2] !== file)) return null;
  return { segmentation: found[1].toLowerCase(), file: found[2] };
}

/** The entries of an If-None-Match header, without their W/ prefix. */
function validators(header: string | null): string[] {
  return (header ?? '')
    .split(',')
    .map((item) => item.trim().replace(/^W\//, ''))
    .filter(Boolean);
}

function ok(answer: Answer): boolean {
  return answer.status === 200;
}

/** Conditional headers set aside by a request hook, for its response hook. */
const heldValidators = new WeakMap<Exchange, string[]>();

/** The four exports: their bytes, file names and validators. */
export const EXPORTS: Regression[] = [
  {
    id: 'I-ZIP-EXTRA-README-ENTRY',
    area: 'exports',
    description:
      'The ZIP builder was shared with the dashboard\'s "download bundle", which adds a README.txt describing the files: rois.zip carries one entry that is not an ImageJ ROI (RoiManager and scripts that open every entry as a .roi fail on it)',
    violates: '"GET `/api/v1/export/{segmentation_id}/rois.zip` | ZIP of ImageJ-format `.roi` files"',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (!exportOf(exchange, 'rois.zip') || !ok(answer)) return;
      const zip = await JSZip.loadAsync(answer.body);
      zip.file(
        'README.txt',
        'ImageJ ROIs of one segmentation: open this archive with Analyze > Tools > ROI Manager > More > Open.\n',
      );
      answer.body = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    },
  },
  {
    id: 'I-EXP-FILENAME-UNQUOTED',
    area: 'exports',
    description:
      'The attachment header is written by hand as `attachment; filename=<name>` (no quotes, no `filename*`): an image named with a space or a semicolon (`plate 1; B3.tif`) downloads under a name cut at the first blank or semicolon',
    violates: 'components.headers.ContentDisposition: `attachment; filename="<image name>_<export>"`',
    statedIn: 'document',
    response(exchange, answer) {
      const disposition = answer.headers['content-disposition'];
      if (!exportOf(exchange) || !disposition) return;
      const name = disposition.match(/filename="((?:[^"\\]|\\.)*)"/)?.[1];
      if (name === undefined) return;
      answer.headers['content-disposition'] = `attachment; filename=${name.replace(/\\(.)/g, '$1')}`;
    },
  },
  {
    id: 'I-EXP-ETAG-UNQUOTED',
    area: 'exports',
    description:
      'The export ETag is set from the bare hash, without the double quotes of an entity tag: `ETag: T2MUX0Kr6jTuX7kXJ58dx8` (the server matches it back either way, but caches and clients that parse entity tags drop it)',
    violates: 'components.headers.ExportETag: a strong validator, `pattern: ^"[^"]*"$`',
    statedIn: 'document',
    request(exchange) {
      if (!exportOf(exchange)) return;
      const header = exchange.headers.get('if-none-match');
      if (!header) return;
      const quoted = header
        .split(',')
        .map((item) => item.trim())
        .map((item) => (item === '*' || item.startsWith('"') || item.startsWith('W/') ? item : `"${item}"`));
      exchange.headers.set('if-none-match', quoted.join(', '));
    },
    response(exchange, answer) {
      if (!exportOf(exchange) || !answer.headers.etag) return;
      answer.headers.etag = answer.headers.etag.replace(/^(W\/)?"(.*)"$/, '$1$2');
    },
  },
  {
    id: 'I-EXP-ETAG-IGNORES-KIND',
    area: 'exports',
    description:
      "The export ETag hashes the segmentation id and the query string but not the export: measurements.csv and rois.geojson of one segmentation carry the same ETag, and a conditional request that names the CSV's ETag on the GeoJSON is answered 304",
    violates:
      'components.headers.ExportETag: "A strong validator of the export\'s bytes" (the same ETag means the same bytes)',
    statedIn: 'document',
    request(exchange) {
      if (!exportOf(exchange)) return;
      heldValidators.set(exchange, validators(exchange.headers.get('if-none-match')));
      exchange.headers.delete('if-none-match');
    },
    response(exchange, answer) {
      const asked = exportOf(exchange);
      if (!asked || !ok(answer)) return;
      const query = new URL(exchange.path, 'http://proxy').searchParams.toString();
      const etag = `"${createHash('sha256').update(`${asked.segmentation}?${query}`).digest('base64url').slice(0, 22)}"`;
      answer.headers.etag = etag;
      const held = heldValidators.get(exchange) ?? [];
      if (held.includes(etag) || held.includes('*')) {
        answer.status = 304;
        answer.body = Buffer.alloc(0);
        delete answer.headers['content-type'];
      }
    },
  },
  {
    id: 'I-CSV-MODEL-NAME-IS-ID',
    area: 'exports',
    description:
      "The CSV row builder reads `model_name` from the segmentation's `model_id` column (the join to the models table was dropped for speed): every row's `model_name` is the model's uuid",
    violates: 'the CSV measurement column "`model_name`" (the list of columns in Resources)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!exportOf(exchange, 'measurements.csv') || !ok(answer)) return;
      const key = exchange.headers.get('authorization')?.replace(/^Bearer\s+/i, '');
      const models = await state.upstream('GET', '/api/v1/models', { key });
      if (models.status !== 200) return;
      const ids = new Map(readJson<Array<{ id: string; name: string }>>(models).map((m) => [m.name, m.id]));
      const text = answer.body.toString('utf8');
      const rows = parseCsv(text);
      const column = rows[0]?.indexOf('model_name') ?? -1;
      if (column < 0) return;
      for (const row of rows.slice(1)) if (ids.has(row[column])) row[column] = ids.get(row[column])!;
      answer.body = Buffer.from(writeCsv(rows, text.includes('\r\n') ? '\r\n' : '\n'));
    },
  },
  {
    id: 'I-GEO-ZERO-CELLS-FEATURES-NULL',
    area: 'exports',
    description:
      'The GeoJSON writer declares its feature list as a nil slice and appends a feature per cell: a segmentation that found no cell answers `"features": null` instead of an empty array',
    violates: 'components.schemas.FeatureCollection: `features` `type: array` (required)',
    statedIn: 'document',
    response(exchange, answer) {
      if (!exportOf(exchange, 'rois.geojson') || !ok(answer) || !isJson(answer)) return;
      const body = readJson<{ features?: unknown[] }>(answer);
      if (!Array.isArray(body.features) || body.features.length) return;
      const type = answer.headers['content-type'];
      writeJson(answer, { ...body, features: null });
      answer.headers['content-type'] = type;
    },
  },
];
