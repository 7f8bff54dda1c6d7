import JSZip from 'jszip';
import type { Regression } from '../regression.js';
import { bearer, match, pathname } from '../edit-helpers.js';
import { editCsv, EXPORT_PATH, isExport, parseCsv, query } from './common.js';

const CSV = /^\/api\/v1\/export\/([^/]+)\/measurements\.csv$/;
const GEOJSON = /^\/api\/v1\/export\/([^/]+)\/rois\.geojson$/;
const ZIP = /^\/api\/v1\/export\/([^/]+)\/rois\.zip$/;
const PNG = /^\/api\/v1\/export\/([^/]+)\/overlay\.png$/;

/** The request with one query parameter set (what a handler that rewrote an option asked the renderer). */
function withParam(path: string, name: string, value: string): string {
  const url = new URL(path, 'http://proxy');
  url.searchParams.set(name, value);
  return url.pathname + url.search;
}

export const EXPORTS: Regression[] = [
  {
    id: 'D-CSV-UTF8-BOM',
    area: 'exports',
    description:
      'measurements.csv starts with a UTF-8 byte order mark (added "for Excel"): the first header cell reads `\\uFEFFimage_name`, and a `columns` selection\'s first name too',
    violates: '"### CSV measurement columns `image_name`, `image_width`, ..." (the header names the columns)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (match(exchange, 'GET', CSV) && answer.status === 200)
        answer.body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), answer.body]);
    },
  },
  {
    id: 'D-CSV-ROI-INDEX-FROM-ZERO',
    area: 'exports',
    description:
      "The CSV writer numbers ROIs with the loop's enumerate() index: `roi_index` starts at 0 where the GeoJSON export (and the document) start at 1",
    violates:
      'measurements.csv example row (`roi_index` 1 for the first ROI) and rois.geojson `properties.roi_index` of the same ROI',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV)) return;
      editCsv(answer, (header, rows) => {
        const at = header.indexOf('roi_index');
        if (at < 0) return;
        for (const row of rows) if (/^\d+$/.test(row[at] ?? '')) row[at] = String(Number(row[at]) - 1);
      });
    },
  },
  {
    id: 'D-CSV-CENTROID-SWAPPED',
    area: 'exports',
    description:
      '`centroid_x` and `centroid_y` come from a (row, column) centroid unpacked as (x, y): x and y are swapped',
    violates:
      'CSV measurement columns `centroid_x`, `centroid_y` (with `bbox_x`, `bbox_y`: image pixel x and y)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV)) return;
      editCsv(answer, (header, rows) => {
        const x = header.indexOf('centroid_x');
        const y = header.indexOf('centroid_y');
        if (x < 0 || y < 0) return;
        for (const row of rows) [row[x], row[y]] = [row[y], row[x]];
      });
    },
  },
  {
    id: 'D-CSV-DECIMAL-COMMA',
    area: 'exports',
    description:
      'The CSV number formatter follows the server locale (de_DE): decimals are written with a comma (`"55,1127"`, quoted), which no CSV reader takes as a number',
    violates:
      '`measurements.csv`: "CSV, one row per ROI" with numeric measurement columns (`area_px`, `perimeter_px`, `centroid_x`, ...)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', CSV)) return;
      editCsv(answer, (header, rows) => {
        const numeric = ['confluency', 'perimeter_px', 'centroid_x', 'centroid_y']
          .map((name) => header.indexOf(name))
          .filter((at) => at >= 0);
        for (const row of rows)
          for (const at of numeric)
            if (/^-?\d+\.\d+$/.test(row[at] ?? '')) row[at] = row[at].replace('.', ',');
      });
    },
  },
  {
    id: 'D-GEO-Y-AXIS-UP',
    area: 'exports',
    description:
      'rois.geojson flips y to a GIS convention (y = image height - row, origin at the bottom left): every outline is mirrored top to bottom',
    violates: '"GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const found = match(exchange, 'GET', GEOJSON);
      if (!found || answer.status !== 200) return;
      const csv = await state.upstream(
        'GET',
        `/api/v1/export/${found[1]}/measurements.csv?columns=image_height`,
        { key: bearer(exchange) },
      );
      if (csv.status !== 200) return;
      const height = Number(parseCsv(csv.body.toString('utf8'))[1]?.[0]);
      if (!Number.isFinite(height)) return;
      const collection = JSON.parse(answer.body.toString('utf8')) as {
        features: Array<{ geometry: { coordinates: number[][][] } }>;
      };
      for (const feature of collection.features)
        feature.geometry.coordinates = feature.geometry.coordinates.map((ring) =>
          ring.map(([x, y]) => [x, height - y]),
        );
      answer.body = Buffer.from(JSON.stringify(collection));
    },
  },
  {
    id: 'D-GEO-BACKGROUND-FEATURE',
    area: 'exports',
    description:
      'The GeoJSON tracer loops over every label of the mask, background (label 0) included: the collection opens with one more feature, the frame of the whole image',
    violates: '"GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const found = match(exchange, 'GET', GEOJSON);
      if (!found || answer.status !== 200) return;
      const csv = await state.upstream(
        'GET',
        `/api/v1/export/${found[1]}/measurements.csv?columns=image_width&columns=image_height`,
        { key: bearer(exchange) },
      );
      if (csv.status !== 200) return;
      const [width, height] = (parseCsv(csv.body.toString('utf8'))[1] ?? []).map(Number);
      if (!Number.isFinite(width) || !Number.isFinite(height)) return;
      const collection = JSON.parse(answer.body.toString('utf8')) as { features: unknown[] };
      collection.features.unshift({
        type: 'Feature',
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [width, 0],
              [width, height],
              [0, height],
              [0, 0],
            ],
          ],
        },
        properties: { objectType: 'detection', name: 'background', roi_index: 0 },
      });
      answer.body = Buffer.from(JSON.stringify(collection));
    },
  },
  {
    id: 'D-ZIP-ROI-TYPE-RECT',
    area: 'exports',
    description:
      'The ROI encoder writes type 1 (rectangle) in each .roi header where a traced polygon is meant: ImageJ opens every cell as its bounding box',
    violates: '`rois.zip`: "ZIP of ImageJ-format `.roi` files" (each the outline of one cell)',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (!match(exchange, 'GET', ZIP) || answer.status !== 200) return;
      const zip = await JSZip.loadAsync(answer.body);
      for (const name of Object.keys(zip.files)) {
        if (!name.endsWith('.roi')) continue;
        const roi = Buffer.from(await zip.file(name)!.async('uint8array'));
        if (roi.length > 6 && roi.toString('latin1', 0, 4) === 'Iout') roi[6] = 1;
        zip.file(name, roi, { date: zip.files[name].date });
      }
      answer.body = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    },
  },
  {
    id: 'D-PNG-MAX-SIZE-FLOOR',
    area: 'exports',
    description:
      "The overlay computes its scale as `(max_size - 1) / longest` (a fencepost in the resize helper): a scaled overlay's longest side is one pixel short of `max_size`",
    violates:
      'overlay.png `max_size`: "Cap on the longest side in pixels; the image is scaled down preserving its aspect ratio."',
    statedIn: 'document',
    async request(exchange, state) {
      if (!match(exchange, 'GET', PNG)) return;
      const max = Number(query(exchange).get('max_size'));
      if (!Number.isInteger(max) || max <= 16) return;
      const shifted = { ...exchange, path: withParam(exchange.path, 'max_size', String(max - 1)) };
      const answer = await state.resend(shifted);
      // Only a scaled overlay is affected: one not scaled comes back at its own size either way.
      if (
        answer.status === 200 &&
        answer.body.length > 24 &&
        Math.max(answer.body.readUInt32BE(16), answer.body.readUInt32BE(20)) === max - 1
      )
        return answer;
    },
  },
  {
    id: 'D-PNG-DEFAULT-COLOR-RED',
    area: 'exports',
    description:
      "The overlay's default outline colour is `FF0000` (the drawing library's default), not the documented `FFFF00`, when `outline_color` is omitted",
    violates: 'overlay.png `outline_color`: "default: FFFF00"',
    statedIn: 'document',
    async request(exchange, state) {
      if (!match(exchange, 'GET', PNG) || query(exchange).has('outline_color')) return;
      return state.resend({ ...exchange, path: withParam(exchange.path, 'outline_color', 'FF0000') });
    },
  },
  {
    id: 'D-EXP-FILENAME-SEGMENTATION-ID',
    area: 'exports',
    description:
      'Every export is offered as `<segmentation_id>_<export>` (the storage object name) instead of `<image name>_<export>`',
    violates:
      'Export 200 `Content-Disposition`: "attachment \\"<image name>_measurements.csv\\"" (and `_overlay.png`, `_rois.geojson`, `_rois.zip`)',
    statedIn: 'document',
    response(exchange, answer) {
      const found = isExport(exchange) && pathname(exchange).match(EXPORT_PATH);
      if (!found || answer.status !== 200 || !answer.headers['content-disposition']) return;
      const name = `${found[1].toLowerCase()}_${found[2]}`;
      answer.headers['content-disposition'] = `attachment; filename="${name}"`;
    },
  },
  {
    id: 'D-EXP-INM-WEAK-IGNORED',
    area: 'exports',
    description:
      '`If-None-Match` is compared strongly: an ETag sent back with a `W/` prefix (as a cache or a CDN that compressed it sends) never matches, and the export is sent again',
    violates:
      'If-None-Match: "compared weakly: a `W/` prefix is ignored; when one still matches, the answer is 304"',
    statedIn: 'document',
    request(exchange) {
      const inm = exchange.headers.get('if-none-match');
      if (isExport(exchange) && inm && /W\//.test(inm)) exchange.headers.delete('if-none-match');
    },
  },
  {
    id: 'D-EXP-ETAG-UNSTABLE',
    area: 'exports',
    description:
      'The export ETag hashes the rendered file with its generation time: every download carries a new ETag, and a conditional request never answers 304',
    violates:
      'ExportETag: "the same segmentation with the same options gives the same ETag ... answered 304 with no body while the export is unchanged"',
    statedIn: 'document',
    request(exchange) {
      if (isExport(exchange)) exchange.headers.delete('if-none-match');
    },
    response(exchange, answer, state) {
      if (!isExport(exchange) || !answer.headers.etag) return;
      const count = ((state.memo.get('etag-serial') as number | undefined) ?? 0) + 1;
      state.memo.set('etag-serial', count);
      answer.headers.etag = answer.headers.etag.replace(/"$/, `-${Date.now().toString(36)}${count}"`);
    },
  },
];
