import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import JSZip from 'jszip';
import sharp from 'sharp';
import {
  asOwner,
  CSV_COLUMNS as COLUMNS,
  isJson,
  match,
  others,
  pathname,
  readJson,
  writeJson,
} from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';

const EXPORT =
  /^\/api\/v1\/export\/([0-9a-fA-F-]{36})\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/;

function exportOf(exchange: Exchange, answer: Answer, file: string): boolean {
  const found = match(exchange, 'GET', EXPORT);
  return found !== null && found[2] === file && answer.status === 200;
}

/** The CSV's rows (header first) edited and written back with a real CSV writer. */
function editCsv(answer: Answer, edit: (rows: string[][]) => string[][]): void {
  const rows = parse(answer.body.toString('utf8'), { relax_column_count: true }) as string[][];
  answer.body = Buffer.from(stringify(edit(rows)));
}

/** Each row's cells by column name, edited in place. */
function editCsvByName(answer: Answer, edit: (row: Record<string, string>) => void): void {
  editCsv(answer, ([header, ...rows]) => [
    header,
    ...rows.map((cells) => {
      const row = Object.fromEntries(header.map((name, i) => [name, cells[i]]));
      edit(row);
      return header.map((name) => row[name]);
    }),
  ]);
}

interface FeatureCollection {
  type: string;
  features: Array<{ geometry: { coordinates: number[][][] } }>;
}

function editGeojson(answer: Answer, edit: (collection: FeatureCollection) => void): void {
  const collection = JSON.parse(answer.body.toString('utf8')) as FeatureCollection;
  edit(collection);
  answer.body = Buffer.from(JSON.stringify(collection));
}

async function editZip(answer: Answer, edit: (zip: JSZip, names: string[]) => Promise<void>): Promise<void> {
  const zip = await JSZip.loadAsync(answer.body);
  const names = Object.keys(zip.files)
    .filter((name) => !zip.files[name].dir)
    .sort();
  await edit(zip, names);
  answer.body = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** An ETag computed from the path alone, as a backend that forgot the options in its cache key would. */
function pathOnlyEtag(exchange: Exchange): string {
  return `"${createHash('sha256').update(pathname(exchange)).digest('base64url').slice(0, 22)}"`;
}

/** The four exports: each file's content, and how it is served. */
export const EXPORT_REGRESSIONS: Regression[] = [
  {
    id: 'A-CSV-LATIN1',
    area: 'exports',
    description: "measurements.csv is encoded Latin-1 (the writer's platform default) instead of UTF-8",
    violates:
      "ExportMeasurementsCsv: `text/csv` (UTF-8, RFC 7111/4180 default for the web); names are the client's text",
    statedIn: 'document',
    response(exchange, answer) {
      if (!exportOf(exchange, answer, 'measurements.csv')) return;
      answer.body = Buffer.from(answer.body.toString('utf8'), 'latin1');
    },
  },
  {
    id: 'A-CSV-HAND-JOINED',
    area: 'exports',
    description:
      'measurements.csv is written with a hand-made join: a cell with a comma, quote or line break is not quoted',
    violates: 'Export: "CSV, one row per ROI" (RFC 4180 quoting)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!exportOf(exchange, answer, 'measurements.csv')) return;
      const rows = parse(answer.body.toString('utf8'), { relax_column_count: true }) as string[][];
      answer.body = Buffer.from(rows.map((cells) => cells.join(',')).join('\r\n') + '\r\n');
    },
  },
  {
    id: 'A-CSV-LAST-ROW-DROPPED',
    area: 'exports',
    description: 'measurements.csv loses its last ROI (a range(1, n) off-by-one in the row writer)',
    violates: 'Export table: "measurements.csv | CSV, one row per ROI"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (exportOf(exchange, answer, 'measurements.csv'))
        editCsv(answer, (rows) => (rows.length > 2 ? rows.slice(0, -1) : rows));
    },
  },
  {
    id: 'A-CSV-AREA-IS-BBOX',
    area: 'exports',
    description: '`area_px` is the bounding box area (bbox_w x bbox_h), not the pixel count',
    violates: 'CSV column `area_px`; DESIGN: "`area_px` = pixel count" (the traced outline\'s shoelace area)',
    statedIn: 'document',
    response(exchange, answer) {
      if (!exportOf(exchange, answer, 'measurements.csv')) return;
      editCsvByName(answer, (row) => {
        if (row.area_px !== undefined && row.bbox_w !== undefined && row.bbox_h !== undefined)
          row.area_px = String(Number(row.bbox_w) * Number(row.bbox_h));
      });
    },
  },
  {
    id: 'A-CSV-BBOX-WH-SWAPPED',
    area: 'exports',
    description:
      '`bbox_w` and `bbox_h` are swapped (height and width taken from a numpy shape in row-major order)',
    violates:
      'CSV columns `bbox_w`, `bbox_h`; DESIGN: "`bbox_x, bbox_y, bbox_w, bbox_h` = ImageJ\'s BX, BY, Width, Height"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!exportOf(exchange, answer, 'measurements.csv')) return;
      editCsvByName(answer, (row) => {
        if (row.bbox_w === undefined || row.bbox_h === undefined) return;
        [row.bbox_w, row.bbox_h] = [row.bbox_h, row.bbox_w];
      });
    },
  },
  {
    id: 'A-CSV-COLUMN-ORDER-IGNORED',
    area: 'exports',
    description:
      'The `columns` selection is honoured but always written in the canonical order, not the order asked',
    violates: 'measurements.csv `columns`: "Repeated once per column, in the order wanted."',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT)) return;
      const url = new URL(exchange.path, 'http://proxy');
      const asked = url.searchParams.getAll('columns');
      if (asked.length < 2) return;
      const known = asked
        .filter((c) => COLUMNS.includes(c))
        .sort((a, b) => COLUMNS.indexOf(a) - COLUMNS.indexOf(b));
      const unknown = asked.filter((c) => !COLUMNS.includes(c));
      url.searchParams.delete('columns');
      for (const column of [...known, ...unknown]) url.searchParams.append('columns', column);
      exchange.path = url.pathname + url.search;
    },
  },
  {
    id: 'A-CSV-UNKNOWN-COLUMN-IGNORED',
    area: 'exports',
    description:
      'An unknown column in `columns` is silently dropped (the rest answered 200; none left means all columns)',
    violates:
      'measurements.csv: "An unknown column yields an error whose `detail` names the unknown column(s) and lists the valid ones."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT)) return;
      const url = new URL(exchange.path, 'http://proxy');
      const asked = url.searchParams.getAll('columns');
      if (asked.every((c) => COLUMNS.includes(c))) return;
      url.searchParams.delete('columns');
      for (const column of asked.filter((c) => COLUMNS.includes(c)))
        url.searchParams.append('columns', column);
      exchange.path = url.pathname + url.search;
    },
  },
  {
    id: 'A-CSV-UNKNOWN-DETAIL-NO-LIST',
    area: 'exports',
    description: 'The unknown-column error names the column but no longer lists the valid ones',
    violates: 'measurements.csv: "`detail` names the unknown column(s) and lists the valid ones"',
    statedIn: 'interface',
    response(exchange, answer) {
      const found = match(exchange, 'GET', EXPORT);
      if (!found || found[2] !== 'measurements.csv' || answer.status !== 422 || !isJson(answer)) return;
      const detail = readJson(answer).detail;
      if (typeof detail !== 'string') return;
      const unknown = new URL(exchange.path, 'http://proxy').searchParams
        .getAll('columns')
        .filter((c) => !COLUMNS.includes(c));
      writeJson(answer, { detail: `Unknown column(s): ${unknown.map((c) => `'${c}'`).join(', ')}.` });
    },
  },
  {
    id: 'A-CSV-NO-HEADER-WITH-COLUMNS',
    area: 'exports',
    description:
      'With a `columns` selection the header row is left out (the writer\'s header flag is tied to "all columns")',
    violates:
      'measurements.csv `columns`: values from the CSV column list (the file names its columns as the full export does)',
    statedIn: 'document',
    response(exchange, answer) {
      if (!exportOf(exchange, answer, 'measurements.csv')) return;
      if (!new URL(exchange.path, 'http://proxy').searchParams.has('columns')) return;
      editCsv(answer, (rows) => rows.slice(1));
    },
  },
  {
    id: 'A-GEO-RING-NOT-CLOSED',
    area: 'exports',
    description: "GeoJSON rings leave out their closing position (the tracer's vertex list as is)",
    violates:
      'Export: "GeoJSON FeatureCollection" (RFC 7946 3.1.6: a linear ring is closed); DESIGN: "RFC 7946 rings, closed"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!exportOf(exchange, answer, 'rois.geojson')) return;
      editGeojson(answer, (collection) => {
        for (const feature of collection.features)
          for (const ring of feature.geometry.coordinates) if (ring.length > 4) ring.pop();
      });
    },
  },
  {
    id: 'A-GEO-ROW-COLUMN-ORDER',
    area: 'exports',
    description: "GeoJSON positions are written [row, column] (y, x) from the mask's indices",
    violates:
      'Export: "GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates" ([x, y] positions)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!exportOf(exchange, answer, 'rois.geojson')) return;
      editGeojson(answer, (collection) => {
        for (const feature of collection.features)
          feature.geometry.coordinates = feature.geometry.coordinates.map((ring) =>
            ring.map(([x, y]) => [y, x]),
          );
      });
    },
  },
  {
    id: 'A-GEO-LAST-FEATURE-DROPPED',
    area: 'exports',
    description: 'rois.geojson loses its last cell (off-by-one in the feature loop)',
    violates: 'Export: "GeoJSON FeatureCollection, one polygon feature per cell"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!exportOf(exchange, answer, 'rois.geojson')) return;
      editGeojson(answer, (collection) => {
        if (collection.features.length > 1) collection.features.pop();
      });
    },
  },
  {
    id: 'A-GEO-MEDIA-TYPE-JSON',
    area: 'exports',
    description: "rois.geojson is served as `application/json` (the framework's JSON response class)",
    violates: 'exportRoisGeojson 200 content: `application/geo+json` (x-assumed media type)',
    statedIn: 'document',
    response(exchange, answer) {
      if (exportOf(exchange, answer, 'rois.geojson')) answer.headers['content-type'] = 'application/json';
    },
  },
  {
    id: 'A-ZIP-LAST-ROI-DROPPED',
    area: 'exports',
    description: 'rois.zip loses its last ROI entry (off-by-one)',
    violates: 'exportRoisZip: "ZIP of ImageJ-format `.roi` files, one traced ROI per cell."',
    statedIn: 'document',
    async response(exchange, answer) {
      if (!exportOf(exchange, answer, 'rois.zip')) return;
      await editZip(answer, async (zip, names) => {
        if (names.length > 1) zip.remove(names[names.length - 1]);
      });
    },
  },
  {
    id: 'A-ZIP-ROI-TOP-LEFT-SWAPPED',
    area: 'exports',
    description:
      'Each .roi header writes `left` where `top` goes and `top` where `left` goes (and bottom/right likewise)',
    violates:
      'Export: "ZIP of ImageJ-format `.roi` files" (ImageJ RoiDecoder: top, left, bottom, right at bytes 8-15)',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (!exportOf(exchange, answer, 'rois.zip')) return;
      await editZip(answer, async (zip, names) => {
        for (const name of names) {
          const roi = Buffer.from(await zip.file(name)!.async('nodebuffer'));
          if (roi.length < 16 || roi.toString('latin1', 0, 4) !== 'Iout') continue;
          const [top, left, bottom, right] = [
            roi.readInt16BE(8),
            roi.readInt16BE(10),
            roi.readInt16BE(12),
            roi.readInt16BE(14),
          ];
          roi.writeInt16BE(left, 8);
          roi.writeInt16BE(top, 10);
          roi.writeInt16BE(right, 12);
          roi.writeInt16BE(bottom, 14);
          zip.file(name, roi);
        }
      });
    },
  },
  {
    id: 'A-PNG-GRAYSCALE',
    area: 'exports',
    description: 'overlay.png is written as 8-bit greyscale (the outlines lose their colour)',
    violates: 'Export: "overlay PNG, presentation RGB image"',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (!exportOf(exchange, answer, 'overlay.png')) return;
      answer.body = await sharp(answer.body).toColourspace('b-w').png().toBuffer();
    },
  },
  {
    id: 'A-PNG-MAX-SIZE-IGNORED',
    area: 'exports',
    description: 'overlay.png ignores `max_size` and always answers the full-size overlay',
    violates:
      'exportOverlayPng `max_size` (x-assumed): "Cap on the longest side in pixels; the image is scaled down preserving its aspect ratio."',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT)) return;
      const url = new URL(exchange.path, 'http://proxy');
      if (!url.searchParams.has('max_size')) return;
      url.searchParams.delete('max_size');
      exchange.path = url.pathname + url.search;
    },
  },
  {
    id: 'A-EXP-INLINE',
    area: 'exports',
    description:
      'Exports are served `Content-Disposition: inline` (a browser shows them instead of saving them)',
    violates: 'Export: "All exports ... are returned as file attachments."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', EXPORT) || answer.status !== 200) return;
      const disposition = answer.headers['content-disposition'];
      if (disposition) answer.headers['content-disposition'] = disposition.replace(/^attachment/, 'inline');
    },
  },
  {
    id: 'A-EXP-ETAG-IGNORES-OPTIONS',
    area: 'exports',
    description:
      'The export ETag is computed from the path only: every `columns` / overlay option shares one ETag, and a conditional request for another option answers 304',
    violates:
      'ExportETag (x-assumed): "the same segmentation with the same options gives the same ETag, a different option a different one"',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT)) return;
      const etag = pathOnlyEtag(exchange);
      if (exchange.headers.get('if-none-match') === etag)
        return { status: 304, headers: { etag }, body: Buffer.alloc(0) };
      exchange.headers.delete('if-none-match');
    },
    response(exchange, answer) {
      if (match(exchange, 'GET', EXPORT) && answer.status === 200 && answer.headers.etag)
        answer.headers.etag = pathOnlyEtag(exchange);
    },
  },
  {
    id: 'A-EXP-304-ANY-VALIDATOR',
    area: 'exports',
    description:
      'Any `If-None-Match` on an export answers 304, whatever ETag it names (presence checked, not the value)',
    violates:
      'IfNoneMatch (x-assumed): "when it still matches, the answer is 304 with no body" (RFC 9110 13.1.2)',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT)) return;
      const sent = exchange.headers.get('if-none-match');
      if (sent) return { status: 304, headers: { etag: sent }, body: Buffer.alloc(0) };
    },
  },
  {
    id: 'A-EXP-OTHER-ORG',
    area: 'exports',
    description: "Exports look the segmentation up by id alone: another organization's results download",
    violates:
      'Export: "All exports are for a completed segmentation in the caller\'s organization"; Authentication 3 (404)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', EXPORT) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const leaked = await asOwner(exchange, state, org);
        if (leaked.status !== 200) continue;
        Object.assign(answer, leaked);
        return;
      }
    },
  },
];
