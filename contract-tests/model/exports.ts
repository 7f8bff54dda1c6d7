import { observeAttachmentName } from './attachment-names.js';
import { compare, expectStatus, isObject, type Exchange, type Finding } from './exchange.js';
import { CSV_COLUMNS, observeExportOptions, refusesOptions } from './export-options.js';
import { learnExportTag, observeSharedTag } from './export-tags.js';
import { observeOverlayOptions } from './overlay-options.js';
import { csvRows, zipEntryNames } from './tables.js';
import { segmentationGone, type Organization, type SegmentationRecord, type World } from './world.js';

/**
 * Exports of a known segmentation: what each file must say given the prediction that made it (its
 * cell count, its id, the image's name, the model's name), that the files name the same cells
 * alike, and that asking again answers the same headers.
 */
const S = {
  gone: 'DELETE /upload/{image_id} … every export of the segmentations answers 404',
  foreign: "All exports are for a completed segmentation in the caller's organization",
  rows: 'CSV, one row per ROI; cell_count: number of ROIs detected',
  features: 'GeoJSON FeatureCollection, one polygon feature per cell',
  zip: 'ZIP of ImageJ-format .roi files (one per cell)',
  columns:
    'columns: … values from the CSV column list in Resources. Omitted means all columns (in the order wanted)',
  cells: 'CSV measurement columns: image_name, segmentation_id, model_name … of the segmentation exported',
  integers:
    'image_width, image_height, roi_index, area_px, bbox_*: integers (pixel counts and pixel-corner coordinates)',
  sameCells: 'the exports describe the same ROIs: a roi_id names one cell in every export',
  repeat: 'an export of a segmentation is the same file each time it is asked for (same headers)',
  charset: 'the CSV decodes, in the charset it declares, to the names the client sent',
  quoted:
    "CSV, one row per ROI (RFC 4180: a cell with a comma, quote or line break is quoted, so every row has the header's cells)",
  notModified:
    'If-None-Match: the ETag of an export already held, or a comma-separated list of them; when one still matches, the answer is 304 with no body (RFC 9110 13.1.2): a validator that names no version of the file gets the file',
  maxSize:
    'max_size: cap on the longest side in pixels; the image is scaled down preserving its aspect ratio',
  unknownColumn:
    'An unknown column yields an error whose detail names the unknown column(s) and lists the valid ones',
  unknownColumnString:
    'Handled errors have body {detail: string}; measurements.csv 422: an unknown column: then `detail` is a string that names each unknown column and lists the valid ones (document), not the validation array of a non-UUID id',
};

const INTEGER_COLUMNS = [
  'image_width',
  'image_height',
  'roi_index',
  'area_px',
  'bbox_x',
  'bbox_y',
  'bbox_w',
  'bbox_h',
];
/** The same export's validator (headers.ts compares the rest of a repeated answer's headers). */
const REPEATED_HEADERS = ['etag'];

export function observeExport(
  world: World,
  org: Organization,
  x: Exchange,
  s: SegmentationRecord,
): Finding[] {
  const findings: Finding[] = [];
  const url = new URL(x.url);
  const notFound = refusesOptions(x, url) ? [404, 422] : [404];
  if (segmentationGone(world, s)) return (expectStatus(findings, S.gone, x, notFound), findings);
  if (s.org !== org.ref) return (expectStatus(findings, S.foreign, x, notFound), findings);
  notModified(x, s.exportHeaders.get(url.toString())?.etag, findings);
  observeSharedTag(world, url.toString(), s.exportHeaders.get(url.toString())?.etag, x, findings);
  learnExportTag(world, url.toString(), x);
  observeExportOptions(x, url, findings);
  if (x.operationId === 'exportMeasurementsCsv' && x.status >= 400 && x.status < 500)
    unknownColumns(x, url, findings);
  if (x.status !== 200) return findings;
  observeAttachmentName(x, world.images.get(s.imageId)?.name, findings);
  const first = s.exportHeaders.get(url.toString());
  const headers = Object.fromEntries(REPEATED_HEADERS.map((h) => [h, x.headers[h] ?? null]));
  if (first)
    for (const h of REPEATED_HEADERS)
      compare(findings, S.repeat, `${x.operationId} asked again: ${h}`, first[h], headers[h]);
  else s.exportHeaders.set(url.toString(), headers);
  if (x.operationId === 'exportMeasurementsCsv') csv(world, org, x, s, url, findings);
  if (x.operationId === 'exportRoisGeojson') geojson(x, s, findings);
  if (x.operationId === 'exportRoisZip') zip(x, s, findings);
  if (x.operationId === 'exportOverlayPng') overlaySize(x, s, url, findings);
  if (x.operationId === 'exportOverlayPng') observeOverlayOptions(s, url, x.bytes, findings);
  return findings;
}

/** A name as a word of its own: `bbox_h` is not in `bbox_hx`, nor `area` in `area_px`. */
const namedAsWord = (text: string, name: string): boolean =>
  new RegExp(`(?<![A-Za-z0-9_])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`).test(text);

/**
 * The error for unknown `columns` (its status is not shown): its detail names every unknown one
 * asked for and every valid one, each as a word of its own, in one string (a handled error's
 * detail, as the document gives it), so a client shows it as it came rather than rebuilding a
 * sentence out of validation items.
 */
function unknownColumns(x: Exchange, url: URL, findings: Finding[]): void {
  const unknown = url.searchParams.getAll('columns').filter((c) => c !== '' && !CSV_COLUMNS.includes(c));
  const detail = isObject(x.body) ? x.body.detail : undefined;
  if (unknown.length === 0 || detail === undefined) return;
  if (typeof detail !== 'string')
    findings.push({
      sentence: S.unknownColumnString,
      subject: `${x.operationId} ${x.status} detail for columns ${unknown.join(', ')}: type`,
      predicted: 'a string',
      received: JSON.stringify(detail),
    });
  const text = typeof detail === 'string' ? detail : JSON.stringify(detail);
  const missing = [...new Set(unknown), ...CSV_COLUMNS].filter((name) => !namedAsWord(text, name));
  if (missing.length)
    findings.push({
      sentence: S.unknownColumn,
      subject: `${x.operationId} ${x.status} detail for columns ${unknown.join(', ')}`,
      predicted: `names ${missing.join(', ')}`,
      received: JSON.stringify(detail),
    });
}

/**
 * A 304 is right only when If-None-Match names the file's current ETag (or is `*`); and when it
 * does, the file is not sent again: one tag of a comma-separated list (weakly compared) is enough.
 */
function notModified(x: Exchange, etag: string | null | undefined, findings: Finding[]): void {
  const sent = x.sentHeaders?.['if-none-match'];
  if (sent === undefined || !etag || (x.status !== 304 && x.status !== 200)) return; // no validator sent, or the file's own not known
  const weak = (tag: string) => tag.replace(/^W\//, '');
  const listed = sent.trim() === '*' ? ['*'] : entityTags(sent);
  if (!listed) return; // not a list of entity-tags: the interface says nothing of what it answers
  const matches = listed.includes('*') || listed.map(weak).includes(weak(etag));
  if (matches === (x.status === 304)) return;
  findings.push({
    sentence: S.notModified,
    subject: `${x.operationId} with If-None-Match: ${sent} (its ETag is ${etag})`,
    predicted: matches ? '304 (no body)' : '200 (the file)',
    received: String(x.status),
  });
}

/**
 * The entity-tags an If-None-Match list names (RFC 9110 5.6.1, empty elements allowed), read tag by
 * tag rather than split on commas, since a quoted tag may hold a comma (8.8.3); undefined when the
 * header is no such list.
 */
function entityTags(header: string): string[] | undefined {
  const element = /[ \t]*(?:((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")[ \t]*)?(?:,|$)/y;
  const tags: string[] = [];
  for (let at = 0; at < header.length;) {
    element.lastIndex = at;
    const found = element.exec(header);
    if (!found || element.lastIndex === at) return undefined;
    if (found[1]) tags.push(found[1]);
    at = element.lastIndex;
  }
  return tags;
}

/** A PNG's width and height from its IHDR chunk; undefined when the bytes are no PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (
    bytes.length < 24 ||
    bytes.readUInt32BE(0) !== 0x89504e47 ||
    bytes.toString('latin1', 12, 16) !== 'IHDR'
  )
    return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The overlay with `max_size`: its longest side is the cap (or the full size, never scaled up), the aspect kept. */
function overlaySize(x: Exchange, s: SegmentationRecord, url: URL, findings: Finding[]): void {
  const size = pngSize(x.bytes);
  if (!size) return;
  const cap = Number(url.searchParams.get('max_size') ?? NaN);
  if (!url.searchParams.has('max_size')) {
    s.overlaySize ??= size;
    return;
  }
  if (!Number.isInteger(cap)) return;
  const full = s.overlaySize;
  const longest = Math.max(size.width, size.height);
  const shown = `${size.width}x${size.height}`;
  if (!full) {
    if (longest > cap)
      compare(findings, S.maxSize, `exportOverlayPng?max_size=${cap}: longest side`, `at most ${cap}`, shown);
    return;
  }
  const scale = Math.min(1, cap / Math.max(full.width, full.height));
  const width = full.width * scale;
  const height = full.height * scale;
  // rounding either way: one pixel, the longest side included ("a cap" is met one pixel short)
  if (Math.abs(size.width - width) > 1 || Math.abs(size.height - height) > 1 || longest > cap)
    compare(
      findings,
      S.maxSize,
      `exportOverlayPng?max_size=${cap}: size (full size ${full.width}x${full.height})`,
      `${Math.round(width)}x${Math.round(height)}`,
      shown,
    );
}

function declaredCharset(contentType: string | undefined): string {
  return (
    /charset="?([^";]+)/i
      .exec(contentType ?? '')?.[1]
      ?.trim()
      .toLowerCase() ?? 'utf-8'
  );
}

function csv(
  world: World,
  org: Organization,
  x: Exchange,
  s: SegmentationRecord,
  url: URL,
  findings: Finding[],
): void {
  let text: string;
  try {
    text = new TextDecoder(declaredCharset(x.headers['content-type'])).decode(x.bytes);
  } catch {
    return; // a charset TextDecoder does not know: not judged here
  }
  // A byte order mark is allowed: the interface names the columns, not the encoding's signature, and
  // a server that writes one for spreadsheet programs follows it.
  const [header, ...rows] = csvRows(text.replace(/^\uFEFF/, '')).filter((r) => r.length > 0);
  if (!header) return;
  const wanted = url.searchParams.getAll('columns');
  compare(
    findings,
    S.columns,
    'exportMeasurementsCsv: header row',
    wanted.length ? wanted : CSV_COLUMNS,
    header,
  );
  compare(findings, S.rows, 'exportMeasurementsCsv: rows', s.cellCount, rows.length);
  const ragged = rows.find((r) => r.length !== header.length);
  if (ragged)
    compare(findings, S.quoted, 'exportMeasurementsCsv: cells of a row', header.length, ragged.length);
  const column = (name: string) => {
    const i = header.indexOf(name);
    return i < 0 ? undefined : rows.map((r) => r[i]);
  };
  const image = world.images.get(s.imageId);
  const names = column('image_name');
  if (names && image?.name !== undefined) {
    // a name a spreadsheet would run as a formula is written with a leading apostrophe (document)
    const expected = /^[=+\-@\t\r]/.test(image.name) ? `'${image.name}` : image.name;
    const wrong = names.find((n) => n !== expected);
    if (wrong !== undefined)
      compare(findings, `${S.cells}; ${S.charset}`, 'exportMeasurementsCsv: image_name', expected, wrong);
  }
  const ids = column('segmentation_id')?.find((v) => v !== s.id);
  if (ids !== undefined) compare(findings, S.cells, 'exportMeasurementsCsv: segmentation_id', s.id, ids);
  const model = org.models?.find((m) => m.id === s.modelId);
  const modelName = column('model_name')?.find((v) => model && v !== model.name);
  if (model && modelName !== undefined)
    compare(findings, S.cells, 'exportMeasurementsCsv: model_name', model.name, modelName);
  for (const name of INTEGER_COLUMNS) {
    const bad = column(name)?.find((v) => !/^-?\d+$/.test(v));
    if (bad !== undefined) compare(findings, S.integers, `exportMeasurementsCsv: ${name}`, 'an integer', bad);
  }
  const indexes = column('roi_index');
  if (indexes)
    compare(
      findings,
      S.rows,
      'exportMeasurementsCsv: roi_index of the rows, sorted',
      Array.from({ length: rows.length }, (_, i) => i + 1),
      indexes.map(Number).sort((a, b) => a - b),
    );
  const roiIds = column('roi_id');
  if (indexes && roiIds) {
    const byIndex = new Map(indexes.map((v, i) => [Number(v), roiIds[i]]));
    if (s.roiIds)
      compare(
        findings,
        S.sameCells,
        'exportMeasurementsCsv: roi_id by roi_index',
        [...s.roiIds],
        [...byIndex],
      );
    else s.roiIds = byIndex;
    sameRoiSet(findings, s, new Set(roiIds), 'exportMeasurementsCsv');
  }
}

function sameRoiSet(findings: Finding[], s: SegmentationRecord, ids: Set<string>, op: string): void {
  if (!s.roiNames && !s.roiIds) return;
  const known = new Set(s.roiNames ? s.roiNames.keys() : s.roiIds!.values());
  const sorted = (set: Set<string>) => [...set].sort();
  compare(
    findings,
    S.sameCells,
    `${op}: the roi_ids, against the other export's`,
    sorted(known),
    sorted(ids),
  );
}

function geojson(x: Exchange, s: SegmentationRecord, findings: Finding[]): void {
  let body = x.body;
  if (Buffer.isBuffer(body)) {
    try {
      body = JSON.parse(body.toString('utf8'));
    } catch {
      return;
    }
  }
  if (!isObject(body)) return;
  // a FeatureCollection's features is an array however many cells were found: none is [], never null
  if (!Array.isArray(body.features))
    return compare(
      findings,
      S.features,
      'exportRoisGeojson: features',
      `an array of ${s.cellCount}`,
      body.features,
    );
  compare(findings, S.features, 'exportRoisGeojson: features', s.cellCount, body.features.length);
  const names = new Map<string, string>();
  for (const f of body.features)
    if (isObject(f) && isObject(f.properties) && typeof f.properties.roi_id === 'string')
      names.set(f.properties.roi_id, String(f.properties.name ?? ''));
  if (names.size !== body.features.length) return;
  sameRoiSet(findings, s, new Set(names.keys()), 'exportRoisGeojson');
  if (s.roiNames)
    compare(
      findings,
      S.repeat,
      'exportRoisGeojson: feature names by roi_id',
      [...s.roiNames].sort(),
      [...names].sort(),
    );
  else s.roiNames = names;
}

function zip(x: Exchange, s: SegmentationRecord, findings: Finding[]): void {
  const names = zipEntryNames(x.bytes);
  if (!names) return;
  compare(findings, S.zip, 'exportRoisZip: .roi entries', s.cellCount, names.length);
  if (s.roiNames && [...s.roiNames.values()].every((n) => n !== ''))
    compare(
      findings,
      S.sameCells,
      "exportRoisZip: entry names, against the GeoJSON features' names",
      [...s.roiNames.values()].map((n) => `${n}.roi`).sort(),
      [...names].sort(),
    );
}
