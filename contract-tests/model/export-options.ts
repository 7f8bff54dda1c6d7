import type { Exchange, Finding } from './exchange.js';

/**
 * An export's query options against what the document's parameters take: a completed segmentation
 * of the caller asked with options the document allows is answered, never refused as invalid, and
 * a `columns` value outside the CSV column list is refused with an error. The list is an enum, so
 * a column is known only as the list spells it: `AREA_PX` is not `area_px`.
 */
const S = {
  valid:
    "All exports are for a completed segmentation in the caller's organization; the options the document takes (overlay.png max_size an integer 16-65536, outline_color six hex digits of either case, fill_opacity 0-1; measurements.csv columns from the CSV column list) are answered",
  unknown:
    'columns: values from the CSV column list in Resources (as listed). An unknown column yields an error',
  refused:
    "VAL-05, assumed: overlay.png's options are max_size an integer 16-65536, outline_color six hex digits, fill_opacity a number 0-1 (document); a value outside them is refused 422 with the detail array, never drawn as some other value",
};

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
];

const INTEGER = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** Each export's query parameters, as the document declares them, with the values each takes. */
const OPTIONS: Record<string, Record<string, (value: string) => boolean>> = {
  exportOverlayPng: {
    max_size: (v) => INTEGER.test(v) && Number(v) >= 16 && Number(v) <= 65536,
    outline_color: (v) => /^[0-9A-Fa-f]{6}$/.test(v),
    fill_opacity: (v) => DECIMAL.test(v) && Number(v) <= 1,
  },
  exportMeasurementsCsv: { columns: (v) => CSV_COLUMNS.includes(v) },
  exportRoisGeojson: {},
  exportRoisZip: {},
};

const NUMBER = /^-?\d+(\.\d+)?$/;
const NO_NUMBER = /^[^\d]+$/;

/**
 * Values of the overlay's options the document's schema refuses beyond doubt: a number outside its
 * range (`max_size=8` under the minimum of 16), a value with no digit at all where a number goes,
 * a colour that is not six hex digits. A value a lenient parser might read either way (`1e2`,
 * `16.0`, an empty one) is no such value: the oracle leaves it alone.
 */
const REFUSED: Record<string, (value: string) => boolean> = {
  max_size: (v) =>
    NO_NUMBER.test(v) ||
    (NUMBER.test(v) && (!Number.isInteger(Number(v)) || Number(v) < 16 || Number(v) > 65536)),
  outline_color: (v) => v !== '' && !/^[0-9A-Fa-f]{6}$/.test(v),
  fill_opacity: (v) => NO_NUMBER.test(v) || (NUMBER.test(v) && (Number(v) < 0 || Number(v) > 1)),
};

/**
 * Whether every query parameter is one the document declares for the operation, with a value it
 * takes, each given once (a column asked twice, or an option repeated, is not shown).
 */
function validOptions(operationId: string, url: URL): boolean {
  const allowed = OPTIONS[operationId];
  if (!allowed) return false;
  const given = [...url.searchParams];
  if (!given.every(([name, value]) => allowed[name]?.(value) === true)) return false;
  const once = given.map(([name, value]) => (name === 'columns' ? `${name}=${value}` : name));
  return new Set(once).size === once.length;
}

export function observeExportOptions(x: Exchange, url: URL, findings: Finding[]): void {
  refusedOptions(x, url, findings);
  const unknown = url.searchParams.getAll('columns').filter((c) => c !== '' && !CSV_COLUMNS.includes(c));
  if (x.operationId === 'exportMeasurementsCsv' && unknown.length && x.status < 400)
    findings.push({
      sentence: S.unknown,
      subject: `${x.operationId} status for columns ${unknown.join(', ')}`,
      predicted: 'a 4xx error naming the unknown column(s)',
      received: String(x.status),
    });
  // 429: a rate limit is the target's own choice at any time, whatever the options
  if (x.status >= 400 && x.status < 500 && x.status !== 429 && validOptions(x.operationId, url))
    findings.push({
      sentence: S.valid,
      subject: `${x.operationId} status for ${url.search || 'no options'}`,
      predicted: '200 (the export)',
      received: String(x.status),
    });
}

/**
 * Whether the query holds an option the document refuses (an overlay option out of its schema, a
 * column not in the list): a target may refuse it 422 before it looks the segmentation up, so a
 * 404 is not the only answer for a segmentation that is not the caller's.
 */
export function refusesOptions(x: Exchange, url: URL): boolean {
  if (x.operationId === 'exportMeasurementsCsv')
    return url.searchParams.getAll('columns').some((c) => !CSV_COLUMNS.includes(c));
  return (
    x.operationId === 'exportOverlayPng' &&
    [...url.searchParams].some(([name, value]) => REFUSED[name]?.(value) === true)
  );
}

/**
 * An overlay asked with an option the document refuses is answered 422 (a 429 or 503 aside, which
 * the document lets a target answer at any time): drawn with the value clamped into range, or another, the client gets
 * an overlay it did not ask for and is never told. Filed under VAL-05, whose check sends them.
 */
function refusedOptions(x: Exchange, url: URL, findings: Finding[]): void {
  if (x.operationId !== 'exportOverlayPng' || [422, 429, 503].includes(x.status)) return;
  const refused = [...url.searchParams].filter(([name, value]) => REFUSED[name]?.(value) === true);
  if (refused.length)
    findings.push({
      sentence: S.refused,
      subject: `${x.operationId} status for ${refused.map(([n, v]) => `${n}=${v}`).join('&')}`,
      predicted: '422 (the detail array)',
      received: String(x.status),
      clause: 'VAL-05',
    });
}
