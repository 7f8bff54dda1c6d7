import JSZip from 'jszip';
import type { Regression } from '../regression.js';
import { CSV_COLUMNS, copyAnswer, isJson, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import { editCsv, idOn, requestJson } from './kit.js';

const EXPORT = /^\/api\/v1\/export\/([^/]+)\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/;

/** One `.roi` file with its last vertex left out (its header2 and name moved up to match). */
function dropLastVertex(roi: Buffer): Buffer {
  const n = roi.readUInt16BE(16);
  if (n < 4) return roi;
  const header2 = roi.readInt32BE(60);
  const kept = n - 1;
  const out = Buffer.alloc(roi.length - 4);
  roi.copy(out, 0, 0, 64);
  out.writeUInt16BE(kept, 16);
  roi.copy(out, 64, 64, 64 + 2 * kept);
  roi.copy(out, 64 + 2 * kept, 64 + 2 * n, 64 + 2 * n + 2 * kept);
  const newHeader2 = 64 + 4 * kept;
  out.writeInt32BE(newHeader2, 60);
  roi.copy(out, newHeader2, header2);
  const nameStart = header2 + 64 <= roi.length - 24 ? roi.readInt32BE(header2 + 16) : 0;
  if (nameStart > 0) out.writeInt32BE(nameStart - 4, newHeader2 + 16);
  return out;
}

export const EXPORTS: Regression[] = [
  {
    id: 'H-CSV-BBOX-ONE-SHORT',
    area: 'exports',
    description:
      "The CSV writer computes `bbox_w` and `bbox_h` as max - min of the ROI's pixel indices (no + 1): every bounding box is one pixel narrower and shorter than the cell, and a one-pixel-wide cell reads 0",
    violates:
      '"CSV measurement columns: ... `bbox_x`, `bbox_y`, `bbox_w`, `bbox_h`" (the ROI\'s bounding box, in pixels)',
    statedIn: 'interface',
    response(exchange, answer) {
      editCsv(exchange, answer, (header, rows) => {
        for (const column of ['bbox_w', 'bbox_h']) {
          const at = header.indexOf(column);
          if (at >= 0) for (const row of rows) if (row[at] !== '') row[at] = String(Number(row[at]) - 1);
        }
      });
    },
  },
  {
    id: 'H-CSV-COLUMNS-VALUES-CANONICAL',
    area: 'exports',
    description:
      "With a `columns` selection the header is written in the order asked but each row's values in the canonical order (the row builder iterates the column list, the header builder the request): asked `area_px` then `roi_id`, the `area_px` column holds the ids",
    violates:
      '"`measurements.csv` query parameter `columns`: optional, repeated once per column, values from the CSV column list" (each column holds its own values)',
    statedIn: 'interface',
    response(exchange, answer) {
      editCsv(exchange, answer, (header, rows) => {
        const canonical = header
          .map((name, at) => ({ name, at }))
          .sort((a, b) => CSV_COLUMNS.indexOf(a.name) - CSV_COLUMNS.indexOf(b.name));
        if (canonical.every(({ at }, i) => at === i)) return;
        for (const [r, row] of rows.entries()) rows[r] = canonical.map(({ at }) => row[at]);
      });
    },
  },
  {
    id: 'H-ZIP-LAST-VERTEX-DROPPED',
    area: 'exports',
    description:
      "The ROI encoder strips the ring's closing position with `slice(0, -2)` where `slice(0, -1)` was meant: every .roi polygon loses its last real vertex (ImageJ cuts a corner off each cell and under-reports its area and perimeter)",
    violates:
      '"GET `/api/v1/export/{segmentation_id}/rois.zip` | ZIP of ImageJ-format `.roi` files" (one outline per cell, as traced)',
    statedIn: 'interface',
    async response(exchange, answer) {
      const found = match(exchange, 'GET', EXPORT);
      if (!found || found[2] !== 'rois.zip' || answer.status !== 200) return;
      const zip = await JSZip.loadAsync(answer.body);
      for (const name of Object.keys(zip.files).filter((n) => n.endsWith('.roi'))) {
        const roi = Buffer.from(await zip.file(name)!.async('uint8array'));
        zip.file(name, dropLastVertex(roi));
      }
      answer.body = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    },
  },
  {
    id: 'H-GEO-ROWS-FROM-ONE',
    area: 'exports',
    description:
      "The tracer pads the mask with one row of background above it (to close outlines at the top edge) and the GeoJSON writer forgets to take it off again: every position's y is one too large, each outline sits one pixel below its cell (and below the CSV's bbox_y)",
    violates: '"GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates"',
    statedIn: 'interface',
    response(exchange, answer) {
      const found = match(exchange, 'GET', EXPORT);
      if (!found || found[2] !== 'rois.geojson' || answer.status !== 200) return;
      const collection = JSON.parse(answer.body.toString('utf8')) as {
        features: Array<{ geometry: { coordinates: number[][][] } }>;
      };
      for (const feature of collection.features)
        feature.geometry.coordinates = feature.geometry.coordinates.map((ring) =>
          ring.map(([x, y]) => [x, y + 1]),
        );
      answer.body = Buffer.from(JSON.stringify(collection));
    },
  },
  {
    id: 'H-PNG-CACHE-IGNORES-COLOR',
    area: 'exports',
    description:
      "Rendered overlays are cached under the segmentation, `max_size` and `fill_opacity`, and the cache key forgot `outline_color`: once an overlay was drawn in one colour, asking another colour answers the first one's PNG (and ETag)",
    violates:
      'overlay.png query parameter `outline_color` ("Outline colour as six hex digits"), an `x-assumed` choice of the document',
    statedIn: 'document',
    response(exchange, answer, state) {
      const found = match(exchange, 'GET', EXPORT);
      if (!found || found[2] !== 'overlay.png' || answer.status !== 200) return;
      const query = new URL(exchange.path, 'http://proxy').searchParams;
      const key = `${found[1].toLowerCase()}|${query.get('max_size')}|${query.get('fill_opacity')}`;
      const cache = memoMap<string, ReturnType<typeof copyAnswer>>(state, 'overlays');
      const held = cache.get(key);
      if (!held) return void cache.set(key, copyAnswer(answer));
      answer.headers = { ...held.headers };
      answer.body = Buffer.from(held.body);
    },
  },
  {
    id: 'H-PNG-MAX-SIZE-TOP-REFUSED',
    area: 'exports',
    description:
      'The `max_size` validator was written `lt=65536` instead of `le`: the document\'s own maximum, 65536 (what clients send for "no cap"), is refused 422',
    violates: 'overlay.png `max_size`: "minimum: 16, maximum: 65536" (an inclusive bound) in the document',
    statedIn: 'document',
    request(exchange) {
      const found = match(exchange, 'GET', EXPORT);
      if (!found || found[2] !== 'overlay.png') return;
      const value = new URL(exchange.path, 'http://proxy').searchParams.get('max_size');
      if (value === null || Number(value) < 65536 || !exchange.headers.get('authorization')) return;
      return {
        status: 422,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(
          JSON.stringify({
            detail: [
              {
                loc: ['query', 'max_size'],
                msg: 'Input should be less than 65536',
                type: 'less_than',
                input: value,
                ctx: { lt: 65536 },
              },
            ],
          }),
        ),
      };
    },
  },
  {
    id: 'H-EXP-ETAG-MOVES-ON-SHARE',
    area: 'exports',
    description:
      "The export ETag hashes the segmentation row's `updated_at`, which POST /shares touches: sharing a segmentation changes the ETag of every one of its exports, whose bytes did not change, and the ETags held before answer 200 with the whole file again",
    violates:
      'ExportETag: "the same segmentation with the same options gives the same ETag" (a strong validator of the export\'s bytes)',
    statedIn: 'document',
    request(exchange, state) {
      const id = idOn(exchange, 'GET', EXPORT);
      const version = id ? memoMap<string, number>(state, 'shared').get(id) : undefined;
      const held = exchange.headers.get('if-none-match');
      if (!version || !held) return;
      const suffix = `.s${version}"`;
      const tags = held
        .split(',')
        .map((tag) => tag.trim())
        .filter((tag) => tag.endsWith(suffix))
        .map((tag) => tag.slice(0, -suffix.length) + '"');
      if (tags.length) exchange.headers.set('if-none-match', tags.join(', '));
      else exchange.headers.delete('if-none-match');
    },
    response(exchange, answer, state) {
      const shared = memoMap<string, number>(state, 'shared');
      if (match(exchange, 'POST', /^\/api\/v1\/shares$/) && answer.status === 200 && isJson(answer)) {
        const segmentation = String(
          readJson(answer).segmentation_id ?? requestJson(exchange).segmentation_id,
        );
        shared.set(segmentation.toLowerCase(), (shared.get(segmentation.toLowerCase()) ?? 0) + 1);
        return;
      }
      const id = idOn(exchange, 'GET', EXPORT);
      const version = id && shared.get(id);
      const etag = answer.headers.etag;
      if (version && etag?.endsWith('"')) answer.headers.etag = `${etag.slice(0, -1)}.s${version}"`;
    },
  },
  {
    id: 'H-EXP-INM-STAR-IGNORED',
    area: 'exports',
    description:
      'The conditional check looks each `If-None-Match` entry up among the export\'s ETags and forgot the `*` wildcard: `If-None-Match: *` (a cache revalidating "any version I have") answers 200 with the whole file instead of 304',
    violates:
      'If-None-Match: "`*` matches any export that exists, so `If-None-Match: *` answers 304 too (RFC 9110, section 13.1.2)"',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT)) return;
      const held = exchange.headers.get('if-none-match');
      if (!held) return;
      const tags = held
        .split(',')
        .map((tag) => tag.trim())
        .filter((tag) => tag !== '*');
      if (tags.length) exchange.headers.set('if-none-match', tags.join(', '));
      else exchange.headers.delete('if-none-match');
    },
  },
  {
    id: 'H-CSV-UNKNOWN-COLUMN-ARRAY',
    area: 'exports',
    description:
      "The `columns` check moved from the handler into the query model as a Literal of the column names: an unknown column is refused by the framework's validator, a `detail` array with one `literal_error` item per unknown column, where the document gives one string naming them all",
    violates:
      'measurements.csv 422: "an unknown column: then `detail` is a string that names each unknown column and lists the valid ones"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', /^\/api\/v1\/export\/[^/]+\/measurements\.csv$/) || answer.status !== 422)
        return;
      if (!isJson(answer) || typeof readJson(answer).detail !== 'string') return;
      const asked = new URL(exchange.path, 'http://proxy').searchParams.getAll('columns');
      const expected = CSV_COLUMNS.map((name) => `'${name}'`).join(', ');
      const detail = asked.flatMap((name, at) =>
        CSV_COLUMNS.includes(name)
          ? []
          : [
              {
                loc: ['query', 'columns', String(at)],
                msg: `Input should be ${expected}`,
                type: 'literal_error',
                input: name,
                ctx: { expected },
              },
            ],
      );
      if (detail.length) writeJson(answer, { detail });
    },
  },
];
