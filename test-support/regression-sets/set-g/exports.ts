import JSZip from 'jszip';
import { copyAnswer, isJson, match, memoMap, readJson } from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import { editCsvColumn, UUID } from './state.js';

const EXPORT = (file: string) => new RegExp(`^/api/v1/export/${UUID}/${file.replace('.', '\\.')}$`);

/** The ROI written with its first vertex repeated at the end (a GeoJSON ring copied as is). */
function withClosingVertex(roi: Buffer): Buffer {
  const n = roi.readUInt16BE(16);
  const header2 = roi.readInt32BE(60);
  if (n < 3 || header2 !== 64 + 4 * n) return roi;
  const out = Buffer.alloc(roi.length + 4);
  roi.copy(out, 0, 0, 64);
  out.writeUInt16BE(n + 1, 16);
  out.writeInt32BE(header2 + 4, 60);
  for (let i = 0; i < n; i++) {
    out.writeUInt16BE(roi.readUInt16BE(64 + 2 * i), 64 + 2 * i);
    out.writeUInt16BE(roi.readUInt16BE(64 + 2 * n + 2 * i), 64 + 2 * (n + 1) + 2 * i);
  }
  out.writeUInt16BE(roi.readUInt16BE(64), 64 + 2 * n);
  out.writeUInt16BE(roi.readUInt16BE(64 + 2 * n), 64 + 2 * (n + 1) + 2 * n);
  roi.copy(out, header2 + 4, header2);
  const nameOffset = roi.readInt32BE(header2 + 16);
  if (nameOffset > 0) out.writeInt32BE(nameOffset + 4, header2 + 4 + 16);
  return out;
}

/** Which image each segmentation came from, as the client was told by GET /predict/{id}. */
function noteSegmentationImage(exchange: Exchange, answer: Answer, state: ProxyState): void {
  if (!match(exchange, 'GET', new RegExp(`^/api/v1/predict/${UUID}$`)) || answer.status !== 200) return;
  if (!isJson(answer)) return;
  const body = readJson<{ image_id?: string; segmentation_id?: string }>(answer);
  if (body.segmentation_id && body.image_id)
    memoMap<string, string>(state, 'g-exp-seg-image').set(body.segmentation_id, body.image_id);
}

export const EXPORTS: Regression[] = [
  {
    id: 'G-CSV-CONFLUENCY-FRACTION',
    area: 'exports',
    description:
      "measurements.csv writes `confluency` as the covered fraction (0.074509) where it is a percent (7.4509): the helper that computed it for the dashboard's gauge was reused without its x100",
    violates:
      'openapi.yaml measurements.csv example row (`confluency` 12.5) and DESIGN.md: "`confluency` = percent (0-100) of the image area covered by ROIs"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', EXPORT('measurements.csv'))) return;
      editCsvColumn(answer, 'confluency', (value) => {
        const n = Number(value);
        return Number.isFinite(n) ? String(Number((n / 100).toFixed(6))) : value;
      });
    },
  },
  {
    id: 'G-CSV-CENTROID-TRUNCATED',
    area: 'exports',
    description:
      'The CSV writer formats the centroids with an integer format (`%d`): `centroid_x` 194.2399 is written 194, the sub-pixel position is lost (and differs from the GeoJSON measurements)',
    violates:
      'openapi.yaml measurements.csv: `centroid_x`, `centroid_y` are numbers with their decimals (example row 40.5, 22.5)',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', EXPORT('measurements.csv'))) return;
      for (const column of ['centroid_x', 'centroid_y'])
        editCsvColumn(answer, column, (value) => {
          const n = Number(value);
          return Number.isFinite(n) ? String(Math.trunc(n)) : value;
        });
    },
  },
  {
    id: 'G-GEO-RINGS-CLOCKWISE',
    area: 'exports',
    description:
      "rois.geojson writes each ring in the tracer's order, which in image coordinates (y down) is clockwise: every exterior ring breaks the GeoJSON right-hand rule, and tools that honour it (d3-geo, shapely with orient) read each cell as the whole plane minus the cell",
    violates:
      '"GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates" (GeoJSON, RFC 7946 3.1.6: exterior rings are counterclockwise)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', EXPORT('rois.geojson')) || answer.status !== 200) return;
      const collection = JSON.parse(answer.body.toString('utf8')) as {
        features: Array<{ geometry: { coordinates: number[][][] } }>;
      };
      for (const feature of collection.features)
        feature.geometry.coordinates = feature.geometry.coordinates.map((ring) => [...ring].reverse());
      answer.body = Buffer.from(JSON.stringify(collection));
    },
  },
  {
    id: 'G-ZIP-ROI-CLOSING-VERTEX',
    area: 'exports',
    description:
      'The ROI encoder is fed the GeoJSON ring as it is, closing position included: each .roi polygon has one vertex too many, its last a repeat of its first (ImageJ counts it in the polygon and its perimeter)',
    violates:
      '"GET `/api/v1/export/{segmentation_id}/rois.zip` | ZIP of ImageJ-format `.roi` files" (an ImageJ polygon lists each vertex once)',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (!match(exchange, 'GET', EXPORT('rois.zip')) || answer.status !== 200) return;
      const zip = await JSZip.loadAsync(answer.body);
      for (const name of Object.keys(zip.files)) {
        if (!name.endsWith('.roi')) continue;
        const roi = Buffer.from(await zip.file(name)!.async('uint8array'));
        zip.file(name, withClosingVertex(roi));
      }
      answer.body = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    },
  },
  {
    id: 'G-PNG-MAX-SIZE-FLOOR-CLAMPED',
    area: 'exports',
    description:
      "The overlay's `max_size` lost its validator's minimum and the renderer clamps it to 16: `max_size=8` answers a 16-pixel overlay with 200 instead of refusing it 422",
    violates: 'openapi.yaml overlay.png `max_size`: integer, minimum 16 (a smaller value is refused 422)',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT('overlay.png'))) return;
      const url = new URL(exchange.path, 'http://proxy');
      const size = Number(url.searchParams.get('max_size'));
      if (!url.searchParams.has('max_size') || !Number.isInteger(size) || size < 1 || size >= 16) return;
      url.searchParams.set('max_size', '16');
      exchange.path = url.pathname + url.search;
    },
  },
  {
    id: 'G-PNG-CACHED-PER-IMAGE',
    area: 'exports',
    description:
      "Rendered overlays are cached under the image id and the options, not the segmentation: once one segmentation of an image was downloaded, the overlay of another segmentation of the same image (another model) answers the first one's outlines",
    violates:
      '"All exports are for a completed segmentation in the caller\'s organization" (each segmentation\'s overlay shows its own cells)',
    statedIn: 'interface',
    response(exchange, answer, state) {
      noteSegmentationImage(exchange, answer, state);
      const found = match(exchange, 'GET', EXPORT('overlay.png'));
      if (!found || answer.status !== 200) return;
      const image = memoMap<string, string>(state, 'g-exp-seg-image').get(found[1]);
      if (!image) return;
      const cache = memoMap<string, Answer>(state, 'g-exp-overlay-cache');
      const key = `${image}?${new URL(exchange.path, 'http://proxy').search}`;
      const held = cache.get(key);
      if (held) Object.assign(answer, copyAnswer(held));
      else cache.set(key, copyAnswer(answer));
    },
  },
  {
    id: 'G-PNG-DEFAULT-FILL-QUARTER',
    area: 'exports',
    description:
      "The overlay handler gives `fill_opacity` a default of 0.25 (the dashboard viewer's look) instead of 0: an overlay asked without the parameter comes back with every cell filled",
    violates: 'openapi.yaml overlay.png `fill_opacity`: default 0 (no fill unless asked)',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT('overlay.png'))) return;
      const url = new URL(exchange.path, 'http://proxy');
      if (url.searchParams.has('fill_opacity')) return;
      url.searchParams.set('fill_opacity', '0.25');
      exchange.path = url.pathname + url.search;
    },
  },
  {
    id: 'G-GEO-FILENAME-JSON-EXTENSION',
    area: 'exports',
    description:
      "The attachment name's extension is looked up from the media type, and the table knows no `application/geo+json`, so it falls back to `.json`: the GeoJSON downloads as `cells_rois.json`",
    violates: 'openapi.yaml rois.geojson: attachment "<image name>_rois.geojson"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'GET', EXPORT('rois.geojson'))) return;
      const disposition = answer.headers['content-disposition'];
      if (disposition)
        answer.headers['content-disposition'] = disposition.replaceAll('_rois.geojson', '_rois.json');
    },
  },
  {
    id: 'G-EXP-DISPOSITION-NOT-EXPOSED',
    area: 'exports',
    description:
      "The CDN in front of the export routes overwrites the CORS headers with its own rule, whose Access-Control-Expose-Headers lists ETag only: a browser client can no longer read the attachment's file name (Content-Disposition)",
    violates:
      'openapi.yaml x-http-conventions.cors: "ETag, Content-Disposition, X-Request-Id, Retry-After, WWW-Authenticate and Allow are exposed to the calling page"',
    statedIn: 'document',
    response(exchange, answer) {
      if (exchange.method !== 'GET' || !exchange.path.startsWith('/api/v1/export/')) return;
      if (answer.headers['access-control-expose-headers'])
        answer.headers['access-control-expose-headers'] = 'ETag';
    },
  },
];
