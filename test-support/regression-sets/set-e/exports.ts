import { createHash, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { caller, isUuid, jsonAnswer, memoMap, pathname, readJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';

const EXPORT = /^\/api\/v1\/export\/([^/]+)\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/;

/** The segmentation and file of a GET on an export route, or null. */
function exportOf(exchange: Exchange): { segmentation: string; file: string } | null {
  if (exchange.method !== 'GET') return null;
  const found = pathname(exchange).match(EXPORT);
  return found ? { segmentation: found[1].toLowerCase(), file: found[2] } : null;
}

function csvLines(answer: Answer): string[] {
  return answer.body.toString('utf8').split('\r\n').join('\n').split('\n');
}

/** A CSV line split on commas outside quotes. */
function cells(line: string): string[] {
  return line
    .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
    .slice(0, -1)
    .map((c) => c.replace(/,$/, ''));
}

const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]);

export const EXPORTS: Regression[] = [
  {
    id: 'E-CSV-BATCH-DUPLICATE-ROW',
    area: 'exports',
    description:
      'The CSV writer pages the ROIs by 8 with `OFFSET page * 8 - 1` after the first page: the eighth ROI is written twice (one row more than `cell_count`, a repeated `roi_id`)',
    violates: '"GET `/api/v1/export/{segmentation_id}/measurements.csv` | CSV, one row per ROI"',
    statedIn: 'interface',
    response(exchange, answer) {
      const exp = exportOf(exchange);
      if (!exp || exp.file !== 'measurements.csv' || answer.status !== 200) return;
      const eol = answer.body.includes('\r\n') ? '\r\n' : '\n';
      const lines = csvLines(answer);
      if (lines.length < 10) return;
      lines.splice(9, 0, lines[8]);
      answer.body = Buffer.from(lines.join(eol));
    },
  },
  {
    id: 'E-GEO-SMALL-CELLS-DROPPED',
    area: 'exports',
    description:
      "The GeoJSON writer reuses the preview's speckle filter: cells under 200 px are left out of rois.geojson (fewer features than `cell_count`, though the CSV lists them)",
    violates:
      '"GET `/api/v1/export/{segmentation_id}/rois.geojson` | GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates"',
    statedIn: 'interface',
    response(exchange, answer) {
      const exp = exportOf(exchange);
      if (!exp || exp.file !== 'rois.geojson' || answer.status !== 200) return;
      const collection = readJson<{
        features: Array<{ properties?: { measurements?: { area_px?: number } } }>;
      }>(answer);
      collection.features = collection.features.filter(
        (f) => (f.properties?.measurements?.area_px ?? 200) >= 200,
      );
      answer.body = Buffer.from(JSON.stringify(collection));
    },
  },
  {
    id: 'E-ZIP-SECOND-DOWNLOAD-EMPTY',
    area: 'exports',
    description:
      'The rendered ZIP is cached as a stream that the first download drains: every later download of the same segmentation answers an empty archive (no `.roi` entry) with the same ETag',
    violates: '"GET `/api/v1/export/{segmentation_id}/rois.zip` | ZIP of ImageJ-format `.roi` files"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const exp = exportOf(exchange);
      if (!exp || exp.file !== 'rois.zip' || answer.status !== 200) return;
      const drained = memoMap<string, boolean>(state, 'drained');
      if (drained.has(exp.segmentation)) answer.body = Buffer.from(EMPTY_ZIP);
      drained.set(exp.segmentation, true);
    },
  },
  {
    id: 'E-PNG-16-BIT',
    area: 'exports',
    description:
      "The overlay is drawn on the source's 16-bit samples and saved as a 16-bit-per-channel PNG (the TIFF's depth kept), where a presentation 8-bit RGB image is meant",
    violates:
      '"The overlay PNG is a presentation RGB image; it does not preserve the original TIFF bit depth or scientific metadata."',
    statedIn: 'interface',
    async response(exchange, answer) {
      const exp = exportOf(exchange);
      if (!exp || exp.file !== 'overlay.png' || answer.status !== 200) return;
      answer.body = await sharp(answer.body).toColourspace('rgb16').png().toBuffer();
    },
  },
  {
    id: 'E-EXP-NON-UUID-404',
    area: 'exports',
    description:
      'The export routes take `segmentation_id` as plain text and look it up: a non-UUID id answers 404 "Segmentation not found" instead of 422',
    violates: '"422 | a path or body id is not a valid UUID (rejected before reaching storage)"',
    statedIn: 'interface',
    request(exchange, state) {
      const exp = exportOf(exchange);
      if (!exp || isUuid(exp.segmentation) || !caller(exchange, state)) return;
      return jsonAnswer(404, { detail: 'Segmentation not found' });
    },
  },
  {
    id: 'E-EXP-FILENAME-KEEPS-EXTENSION',
    area: 'exports',
    description:
      'The attachment name is joined from the whole image name: `cells.tif_measurements.csv` instead of `cells_measurements.csv` (the stem)',
    violates:
      'components.headers.ContentDisposition: `attachment; filename="<image name>_<export>"`, example "plate1_well_B3_measurements.csv" for image plate1_well_B3.tif',
    statedIn: 'document',
    async response(exchange, answer, state) {
      const exp = exportOf(exchange);
      const org = caller(exchange, state);
      const disposition = answer.headers['content-disposition'];
      if (!exp || !org || answer.status !== 200 || !disposition) return;
      const csv = await state.upstream(
        'GET',
        `/api/v1/export/${exp.segmentation}/measurements.csv?columns=image_name`,
        { key: org.key },
      );
      if (csv.status !== 200) return;
      const name = cells(csvLines(csv)[1] ?? '')[0]
        ?.replace(/^"|"$/g, '')
        .replace(/^'/, '');
      const dot = name?.lastIndexOf('.') ?? -1;
      if (!name || dot <= 0) return;
      const stem = name.slice(0, dot);
      const ext = name.slice(dot);
      answer.headers['content-disposition'] = disposition
        .replace(
          `filename="${stem.replace(/[^\x20-\x7e]|["\\]/g, '_')}_`,
          (m) => m.slice(0, -1) + ext.replace(/[^\x20-\x7e]|["\\]/g, '_') + '_',
        )
        .replace(`''${encodeURIComponent(stem)}_`, `''${encodeURIComponent(stem + ext)}_`);
    },
  },
  {
    id: 'E-EXP-304-NO-ETAG',
    area: 'exports',
    description:
      'A conditional export answered 304 is built as an empty response: it no longer carries the `ETag` it confirms',
    violates:
      'components.responses.ExportNotModified: headers `ETag` (RFC 9110, 15.4.5: a 304 repeats the validator)',
    statedIn: 'document',
    response(exchange, answer) {
      if (!exportOf(exchange) || answer.status !== 304) return;
      delete answer.headers.etag;
    },
  },
  {
    id: 'E-EXP-ETAG-IGNORES-SEGMENTATION',
    area: 'exports',
    description:
      "The export ETag hashes the export kind and its options, not the segmentation: two segmentations' CSVs share one ETag, and a conditional request for the second answers 304 with the first's bytes held",
    violates:
      'components.headers.ExportETag: "A strong validator of the export\'s bytes: the same segmentation with the same options gives the same ETag, a different option a different one."',
    statedIn: 'document',
    request(exchange, state) {
      const exp = exportOf(exchange);
      if (!exp) return;
      const held = exchange.headers.get('if-none-match');
      if (!held) return;
      memoMap<string, string>(state, 'inm').set(exchange.path, held);
      exchange.headers.delete('if-none-match');
    },
    response(exchange, answer, state) {
      const exp = exportOf(exchange);
      if (!exp || answer.status !== 200) return;
      const query = new URL(exchange.path, 'http://x').search;
      const etag = `"${createHash('sha256').update(`${exp.file}${query}`).digest('base64url').slice(0, 22)}"`;
      answer.headers.etag = etag;
      const held = memoMap<string, string>(state, 'inm').get(exchange.path);
      memoMap<string, string>(state, 'inm').delete(exchange.path);
      const sent = (held ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
      if (sent.includes(etag) || sent.includes('*')) {
        answer.status = 304;
        answer.body = Buffer.alloc(0);
        delete answer.headers['content-type'];
      }
    },
  },
  {
    id: 'E-PNG-FILL-OPACITY-INVERTED',
    area: 'exports',
    description:
      'The overlay passes `fill_opacity` to the drawing call as a transparency: `fill_opacity=0.25` fills the cells at 75 %, `fill_opacity=1` draws no fill',
    violates:
      'overlay.png query `fill_opacity`: "Opacity of a translucent fill of `outline_color` inside each outline, 0 (none) to 1"',
    statedIn: 'document',
    request(exchange) {
      const exp = exportOf(exchange);
      if (!exp || exp.file !== 'overlay.png') return;
      const url = new URL(exchange.path, 'http://x');
      const given = url.searchParams.get('fill_opacity');
      if (given === null || given.trim() === '' || Number.isNaN(Number(given))) return;
      const value = Number(given);
      if (value < 0 || value > 1) return;
      url.searchParams.set('fill_opacity', String(Math.round((1 - value) * 1e6) / 1e6));
      exchange.path = url.pathname + url.search;
    },
  },
  {
    id: 'E-CSV-ROI-ID-PER-RENDER',
    area: 'exports',
    description:
      "The CSV writer fills `roi_id` with a fresh uuid4 per row at render time (the ROI rows have no id column): the ids differ from the GeoJSON's and change at every download",
    violates:
      'measurements.csv and rois.geojson examples: the same ROI carries one `roi_id` (9d8c7b6a-...) in the CSV row, the feature `id` and its `properties.roi_id`',
    statedIn: 'document',
    response(exchange, answer) {
      const exp = exportOf(exchange);
      if (!exp || exp.file !== 'measurements.csv' || answer.status !== 200) return;
      const eol = answer.body.includes('\r\n') ? '\r\n' : '\n';
      const lines = csvLines(answer);
      const at = cells(lines[0]).indexOf('roi_id');
      if (at < 0) return;
      const out = lines.map((line, i) => {
        if (i === 0 || !line) return line;
        const row = cells(line);
        row[at] = randomUUID();
        return row.join(',');
      });
      answer.body = Buffer.from(out.join(eol));
    },
  },
];
