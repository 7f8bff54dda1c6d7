import JSZip from 'jszip';
import { match, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';

const EXPORT = /^\/api\/v1\/export\/([^/]+)\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/;
const GEOJSON = /^\/api\/v1\/export\/[^/]+\/rois\.geojson$/;
const ZIP = /^\/api\/v1\/export\/[^/]+\/rois\.zip$/;
const OVERLAY = /^\/api\/v1\/export\/[^/]+\/overlay\.png$/;

type Ring = number[][];
interface FeatureCollection {
  type: string;
  features: Array<{ geometry: { type: string; coordinates: Ring[] } }>;
}

function editRings(answer: Answer, edit: (ring: Ring) => Ring): void {
  if (answer.status !== 200) return;
  const collection = readJson<FeatureCollection>(answer);
  for (const feature of collection.features ?? [])
    if (feature.geometry?.type === 'Polygon')
      feature.geometry.coordinates = feature.geometry.coordinates.map(edit);
  const contentType = answer.headers['content-type'];
  writeJson(answer, collection);
  answer.headers['content-type'] = contentType;
}

/** The overlay request with one query parameter rewritten (a parser slip on one parameter). */
function rewriteQuery(
  exchange: Exchange,
  name: string,
  rewrite: (value: string) => string | undefined,
): void {
  if (!match(exchange, 'GET', OVERLAY)) return;
  const url = new URL(exchange.path, 'http://proxy');
  const value = url.searchParams.get(name);
  if (value === null) return;
  const rewritten = rewrite(value);
  if (rewritten === undefined) url.searchParams.delete(name);
  else url.searchParams.set(name, rewritten);
  exchange.path = url.pathname + url.search;
}

/** Offsets of the 16-bit fields of an ImageJ ROI header: version, top, left, bottom, right, n coordinates. */
const ROI_SHORT_FIELDS = [4, 8, 10, 12, 14, 16];

/** GeoJSON, ImageJ ZIP and overlay PNG exports, and what every export shares (attachment, ETag). */
export const EXPORT_REGRESSIONS: Regression[] = [
  {
    id: 'B-GEO-RING-NOT-CLOSED',
    area: 'exports',
    description:
      'GeoJSON rings no longer repeat their first position at the end (the writer was switched to a "compact" mode)',
    violates:
      '"GeoJSON FeatureCollection, one polygon feature per cell" (RFC 7946: a linear ring is closed, its first and last positions equal)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (match(exchange, 'GET', GEOJSON)) editRings(answer, (ring) => ring.slice(0, -1));
    },
  },
  {
    id: 'B-GEO-ROW-COLUMN-ORDER',
    area: 'exports',
    description: "GeoJSON positions are written [row, column] (the raster's index order) instead of [x, y]",
    violates: '"GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (match(exchange, 'GET', GEOJSON))
        editRings(answer, (ring) => ring.map(([x, y, ...rest]) => [y, x, ...rest]));
    },
  },
  {
    id: 'B-GEO-MEDIA-TYPE-JSON',
    area: 'exports',
    description:
      "The GeoJSON export is served as `application/json` (the framework's default) instead of `application/geo+json`",
    violates:
      'exportRoisGeojson 200 (x-assumed): "application/geo+json, attachment \\"<image name>_rois.geojson\\""',
    statedIn: 'document',
    response(exchange, answer) {
      if (match(exchange, 'GET', GEOJSON) && answer.status === 200)
        answer.headers['content-type'] = 'application/json';
    },
  },
  {
    id: 'B-ZIP-ROI-LITTLE-ENDIAN',
    area: 'exports',
    description:
      'The ROI encoder writes its 16-bit header fields little-endian (a port from a DataView default): ImageJ reads nonsense bounds',
    violates:
      '"GET `/api/v1/export/{segmentation_id}/rois.zip` | ZIP of ImageJ-format `.roi` files" (ImageJ\'s format is big-endian)',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (!match(exchange, 'GET', ZIP) || answer.status !== 200) return;
      const zip = await JSZip.loadAsync(answer.body);
      for (const name of Object.keys(zip.files)) {
        if (!name.endsWith('.roi')) continue;
        const roi = Buffer.from(await zip.file(name)!.async('uint8array'));
        for (const offset of ROI_SHORT_FIELDS) roi.writeUInt16LE(roi.readUInt16BE(offset), offset);
        zip.file(name, roi);
      }
      answer.body = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    },
  },
  {
    id: 'B-ZIP-INLINE',
    area: 'exports',
    description: 'The ROI ZIP is sent `Content-Disposition: inline` (copied from the overlay preview route)',
    violates:
      '"All exports are for a completed segmentation in the caller\'s organization and are returned as file attachments."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', ZIP) || answer.status !== 200) return;
      const disposition = answer.headers['content-disposition'] ?? 'attachment; filename="rois.zip"';
      answer.headers['content-disposition'] = disposition.replace(/^attachment/i, 'inline');
    },
  },
  {
    id: 'B-PNG-MAX-SIZE-IGNORED',
    area: 'exports',
    description:
      'The overlay ignores `max_size` (the parameter was renamed in the handler only): the full-size image comes back',
    violates:
      'exportOverlayPng max_size (x-assumed): "Cap on the longest side in pixels; the image is scaled down preserving its aspect ratio."',
    statedIn: 'document',
    request(exchange) {
      rewriteQuery(exchange, 'max_size', () => undefined);
    },
  },
  {
    id: 'B-PNG-OUTLINE-COLOR-BGR',
    area: 'exports',
    description:
      "The overlay reads `outline_color` as BGR (the drawing library's order): red outlines come out blue",
    violates: 'exportOverlayPng outline_color (x-assumed): "Outline colour as six hex digits, without `#`."',
    statedIn: 'document',
    request(exchange) {
      rewriteQuery(exchange, 'outline_color', (rgb) =>
        /^[0-9A-Fa-f]{6}$/.test(rgb) ? rgb.slice(4, 6) + rgb.slice(2, 4) + rgb.slice(0, 2) : rgb,
      );
    },
  },
  {
    id: 'B-PNG-FILL-OPACITY-PERCENT',
    area: 'exports',
    description:
      'The overlay divides `fill_opacity` by 100 (it was a percentage once): any fill is all but invisible',
    violates:
      'exportOverlayPng fill_opacity (x-assumed): "Opacity of a translucent fill inside each outline, 0 (none) to 1."',
    statedIn: 'document',
    request(exchange) {
      rewriteQuery(exchange, 'fill_opacity', (value) => {
        const opacity = Number(value);
        return Number.isFinite(opacity) && opacity >= 0 && opacity <= 1 ? String(opacity / 100) : value;
      });
    },
  },
  {
    id: 'B-EXP-ETAG-IGNORES-OPTIONS',
    area: 'exports',
    description:
      'The export ETag is derived from the segmentation and the export kind only: every option shares it, and a 304 is answered for bytes the client never had',
    violates:
      'ExportETag (x-assumed): "the same segmentation with the same options gives the same ETag, a different option a different one"',
    statedIn: 'document',
    request(exchange) {
      const found = match(exchange, 'GET', EXPORT);
      const held = exchange.headers.get('if-none-match');
      if (!found || !held) return;
      const etag = `"${found[1]}-${found[2]}"`;
      if (!held.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) return;
      return { status: 304, headers: { etag }, body: Buffer.alloc(0) };
    },
    response(exchange, answer) {
      const found = match(exchange, 'GET', EXPORT);
      if (found && (answer.status === 200 || answer.status === 304) && answer.headers.etag)
        answer.headers.etag = `"${found[1]}-${found[2]}"`;
    },
  },
];
