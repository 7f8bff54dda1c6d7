/**
 * `measurements.csv`: one row per ROI, the interface's 20 columns (or a chosen subset, in the
 * caller's order).
 *
 * Format: UTF-8 without a byte-order mark, RFC 4180 (CRLF line ends, header row always present, even
 * with no ROIs; fields quoted by csv-stringify only when they contain a comma, a quote or a line
 * break, and the empty field of a one-column row, which would otherwise be a blank line). Integers
 * (sizes, indexes, pixel counts, bounds) are written as integers; the real-valued
 * columns (confluency, perimeter_px, centroid_x, centroid_y) always with 4 decimals, so the same
 * input gives the same bytes. roi_index is 1-based; cell_type, tags and entity_type are as
 * `export-context.ts` says. Text cells that a spreadsheet would run as a formula start with an
 * apostrophe (`spreadsheet-safe.ts`).
 */
import { stringify } from 'csv-stringify/sync';
import type { Measurements } from '../geometry/types.js';
import {
  assertExportable,
  CELL_TYPE,
  confluencyPercent,
  ENTITY_TYPE,
  roiIndex,
  type ExportContext,
} from './export-context.js';
import { spreadsheetSafe } from './spreadsheet-safe.js';

/** What one row's cells are read from; `confluency` is the image's, already written. */
interface RowSource {
  readonly ctx: ExportContext;
  readonly position: number;
  readonly m: Measurements;
  readonly confluency: string;
}

/**
 * Every column, in the interface's order, and how its cell is read: a string is written as it is,
 * a number as an integer unless the column is in REAL_COLUMNS.
 */
const CELLS = {
  image_name: ({ ctx }: RowSource) => spreadsheetSafe(ctx.imageName),
  image_width: ({ ctx }: RowSource) => ctx.imageWidth,
  image_height: ({ ctx }: RowSource) => ctx.imageHeight,
  segmentation_id: ({ ctx }: RowSource) => ctx.segmentationId,
  segmentation_source: ({ ctx }: RowSource) => spreadsheetSafe(ctx.segmentationSource),
  model_name: ({ ctx }: RowSource) => spreadsheetSafe(ctx.modelName),
  confluency: ({ confluency }: RowSource) => confluency,
  roi_index: ({ position }: RowSource) => roiIndex(position),
  roi_id: ({ ctx, position }: RowSource) => ctx.roiIds[position],
  cell_type: () => CELL_TYPE,
  tags: () => '',
  entity_type: () => ENTITY_TYPE,
  area_px: ({ m }: RowSource) => m.areaPx,
  perimeter_px: ({ m }: RowSource) => m.perimeterPx,
  centroid_x: ({ m }: RowSource) => m.centroidX,
  centroid_y: ({ m }: RowSource) => m.centroidY,
  bbox_x: ({ m }: RowSource) => m.bbox.x,
  bbox_y: ({ m }: RowSource) => m.bbox.y,
  bbox_w: ({ m }: RowSource) => m.bbox.width,
  bbox_h: ({ m }: RowSource) => m.bbox.height,
} satisfies Record<string, (row: RowSource) => string | number>;

export type CsvColumn = keyof typeof CELLS;

export const CSV_COLUMNS = Object.keys(CELLS) as readonly CsvColumn[];

const REAL_COLUMNS = new Set<CsvColumn>(['perimeter_px', 'centroid_x', 'centroid_y']);

export const CSV_DECIMALS = 4;

/** The requested names that are not CSV columns, each once, in request order. */
export function unknownColumns(requested: readonly string[]): string[] {
  return [...new Set(requested.filter((name) => !Object.hasOwn(CELLS, name)))];
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
  const cell = (row: RowSource, column: CsvColumn): string => {
    const value = CELLS[column](row);
    if (typeof value === 'string') return value;
    return REAL_COLUMNS.has(column) ? real(value, column) : integer(value, column);
  };

  // A record of one empty cell would be a blank line, which readers (pandas, Python's DictReader)
  // skip as no record at all: quoted (`""`), as Python's csv writer writes it, it stays a row.
  const options = { record_delimiter: 'windows', quoted_empty: chosen.length === 1 } as const;
  yield stringify([[...chosen]], options);
  const count = ctx.result.objects.length;
  for (let start = 0; start < count; start += CSV_CHUNK_ROWS) {
    const rows: string[][] = [];
    for (let position = start; position < Math.min(count, start + CSV_CHUNK_ROWS); position++) {
      const row = { ctx, position, m: ctx.result.objects[position].measurements, confluency };
      rows.push(chosen.map((column) => cell(row, column)));
    }
    yield stringify(rows, options);
  }
}
