/**
 * `measurements.csv`: one row per ROI, the interface's 20 columns (or a chosen subset, in the
 * caller's order).
 *
 * Format: UTF-8 without a byte-order mark, RFC 4180 (CRLF line ends, header row always present, even
 * with no ROIs; fields quoted by csv-stringify only when they contain a comma, a quote or a line
 * break). Integers (sizes, indexes, pixel counts, bounds) are written as integers; the real-valued
 * columns (confluency, perimeter_px, centroid_x, centroid_y) always with 4 decimals, so the same
 * input gives the same bytes. roi_index is 1-based; cell_type, tags and entity_type are as
 * `export-context.ts` says. Text cells that a spreadsheet would run as a formula start with an
 * apostrophe (`spreadsheet-safe.ts`).
 */
import { stringify } from 'csv-stringify/sync';
import {
  assertExportable,
  CELL_TYPE,
  confluencyPercent,
  ENTITY_TYPE,
  roiIndex,
  type ExportContext,
} from './export-context.js';
import { spreadsheetSafe } from './spreadsheet-safe.js';

export const CSV_COLUMNS = [
  'image_name',
  'image_width',
  'image_height',
  'segmentation_id',
  'segmentation_source',
  'model_name',
  'confluency',
  'roi_index',
  'roi_id',
  'cell_type',
  'tags',
  'entity_type',
  'area_px',
  'perimeter_px',
  'centroid_x',
  'centroid_y',
  'bbox_x',
  'bbox_y',
  'bbox_w',
  'bbox_h',
] as const;

export type CsvColumn = (typeof CSV_COLUMNS)[number];

export const CSV_DECIMALS = 4;

const KNOWN = new Set<string>(CSV_COLUMNS);

/** The requested names that are not CSV columns, each once, in request order. */
export function unknownColumns(requested: readonly string[]): string[] {
  return [...new Set(requested.filter((name) => !KNOWN.has(name)))];
}

function integer(value: number, column: CsvColumn): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${column} must be an integer, got ${value}`);
  return String(value);
}

function real(value: number, column: CsvColumn): string {
  if (!Number.isFinite(value)) throw new RangeError(`${column} must be finite, got ${value}`);
  const text = value.toFixed(CSV_DECIMALS);
  // toFixed keeps the sign of tiny negatives ("-0.0000"); one spelling of zero keeps bytes stable.
  return /^-0\.0+$/.test(text) ? text.slice(1) : text;
}

/**
 * The CSV text. `columns` defaults to all of CSV_COLUMNS; a column may be requested more than once
 * (it is then written more than once). Throws a RangeError naming unknown columns; the HTTP layer
 * checks with `unknownColumns` first to build its 422.
 */
export function measurementsCsv(ctx: ExportContext, columns: readonly string[]): string {
  return [...measurementsCsvChunks(ctx, columns)].join('');
}

/** Rows stringified per chunk of this many ROIs: a large export is sent while it is written. */
export const CSV_CHUNK_ROWS = 1000;

/** The same bytes as `measurementsCsv`, in chunks (header first), so the HTTP layer can stream them. */
export function* measurementsCsvChunks(ctx: ExportContext, columns: readonly string[]): Generator<string> {
  assertExportable(ctx);
  const unknown = unknownColumns(columns);
  if (unknown.length > 0) {
    throw new RangeError(`unknown CSV column(s): ${unknown.join(', ')}; valid: ${CSV_COLUMNS.join(', ')}`);
  }
  const chosen = columns as readonly CsvColumn[];
  const confluency = real(confluencyPercent(ctx), 'confluency');

  const row = (position: number): string[] => {
    const m = ctx.result.objects[position].measurements;
    const cell = (column: CsvColumn): string => {
      switch (column) {
        case 'image_name':
          return spreadsheetSafe(ctx.imageName);
        case 'image_width':
          return integer(ctx.imageWidth, column);
        case 'image_height':
          return integer(ctx.imageHeight, column);
        case 'segmentation_id':
          return ctx.segmentationId;
        case 'segmentation_source':
          return spreadsheetSafe(ctx.segmentationSource);
        case 'model_name':
          return spreadsheetSafe(ctx.modelName);
        case 'confluency':
          return confluency;
        case 'roi_index':
          return integer(roiIndex(position), column);
        case 'roi_id':
          return ctx.roiIds[position];
        case 'cell_type':
          return CELL_TYPE;
        case 'tags':
          return '';
        case 'entity_type':
          return ENTITY_TYPE;
        case 'area_px':
          return integer(m.areaPx, column);
        case 'perimeter_px':
          return real(m.perimeterPx, column);
        case 'centroid_x':
          return real(m.centroidX, column);
        case 'centroid_y':
          return real(m.centroidY, column);
        case 'bbox_x':
          return integer(m.bbox.x, column);
        case 'bbox_y':
          return integer(m.bbox.y, column);
        case 'bbox_w':
          return integer(m.bbox.width, column);
        case 'bbox_h':
          return integer(m.bbox.height, column);
      }
    };
    return chosen.map(cell);
  };

  const options = { record_delimiter: 'windows', quoted_empty: false } as const;
  yield stringify([[...chosen]], options);
  const count = ctx.result.objects.length;
  for (let start = 0; start < count; start += CSV_CHUNK_ROWS) {
    const rows: string[][] = [];
    for (let position = start; position < Math.min(count, start + CSV_CHUNK_ROWS); position++)
      rows.push(row(position));
    yield stringify(rows, options);
  }
}
