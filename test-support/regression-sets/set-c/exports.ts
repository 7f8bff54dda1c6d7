import JSZip from 'jszip';
import sharp from 'sharp';
import { bearer, jsonAnswer, match, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';
import { query } from './tools.js';

/** GeoJSON, ImageJ ROIs, the overlay PNG, and what every export shares (validators). */

const EXPORT = /^\/api\/v1\/export\/([^/]+)\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/;
const GEOJSON = /^\/api\/v1\/export\/([^/]+)\/rois\.geojson$/;
const ZIP = /^\/api\/v1\/export\/([^/]+)\/rois\.zip$/;
const PNG = /^\/api\/v1\/export\/([^/]+)\/overlay\.png$/;

type Position = number[];
type Collection = {
  type: string;
  features: Array<{
    type: string;
    id?: string;
    geometry: { type: string; coordinates: unknown };
    properties: unknown;
  }>;
};

/** Every `.roi` entry of a ROI ZIP passed through `edit` (name and bytes), written again with DEFLATE. */
async function editZip(answer: Answer, edit: (name: string, roi: Buffer) => [string, Buffer]): Promise<void> {
  const zip = await JSZip.loadAsync(answer.body);
  const out = new JSZip();
  for (const [name, entry] of Object.entries(zip.files)) {
    if (entry.dir) continue;
    const [next, bytes] = edit(name, Buffer.from(await entry.async('uint8array')));
    out.file(next, bytes, { date: entry.date });
  }
  answer.body = await out.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** The image's width and height as the caller's CSV gives them (no row: no cell, nothing to scale). */
async function imageSize(
  exchange: Exchange,
  state: Parameters<NonNullable<Regression['response']>>[2],
  segmentationId: string,
) {
  const csv = await state.upstream(
    'GET',
    `/api/v1/export/${segmentationId}/measurements.csv?columns=image_width&columns=image_height`,
    { key: bearer(exchange) },
  );
  const row = csv.body.toString('utf8').split(/\r?\n/)[1];
  if (csv.status !== 200 || !row) return undefined;
  const [width, height] = row.split(',').map(Number);
  return { width, height };
}

export const EXPORTS: Regression[] = [
  {
    id: 'C-EXP-INM-LIST-IGNORED',
    area: 'exports',
    description:
      '`If-None-Match` is compared with the ETag as one whole string: a list of ETags (as caches send) never matches, and the export is sent again with 200',
    violates:
      'If-None-Match: "The `ETag` of an export already held, or a comma-separated list of them ... when one still matches, the answer is 304 with no body"',
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', EXPORT)) return;
      const header = exchange.headers.get('if-none-match');
      if (header?.includes(',')) exchange.headers.set('if-none-match', `"${header.replaceAll('"', '')}"`);
    },
  },
  {
    id: 'C-GEO-ONE-MULTIPOLYGON',
    area: 'exports',
    description:
      'rois.geojson dissolves the cells into one MultiPolygon feature (a "merge outlines" step meant for the preview) instead of one Polygon feature per cell',
    violates: '"GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', GEOJSON) || answer.status !== 200) return;
      const collection = readJson<Collection>(answer);
      if (collection.features.length < 2) return;
      const [first] = collection.features;
      const merged = {
        ...first,
        geometry: {
          type: 'MultiPolygon',
          coordinates: collection.features.map((f) => f.geometry.coordinates),
        },
      };
      writeJson(answer, { ...collection, features: [merged] });
      answer.headers['content-type'] = 'application/geo+json';
    },
  },
  {
    id: 'C-GEO-NORMALISED-COORDINATES',
    area: 'exports',
    description:
      "rois.geojson positions are divided by the image's width and height (the web viewer's 0-1 coordinates leaked into the export)",
    violates: '"GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const found = match(exchange, 'GET', GEOJSON);
      if (!found || answer.status !== 200) return;
      const size = await imageSize(exchange, state, found[1]);
      if (!size) return;
      const collection = readJson<Collection>(answer);
      for (const feature of collection.features)
        feature.geometry.coordinates = (feature.geometry.coordinates as Position[][]).map((ring) =>
          ring.map(([x, y]) => [x / size.width, y / size.height]),
        );
      writeJson(answer, collection);
      answer.headers['content-type'] = 'application/geo+json';
    },
  },
  {
    id: 'C-ZIP-ABSOLUTE-COORDINATES',
    area: 'exports',
    description:
      'Each .roi file stores its outline in image coordinates where the format wants them relative to the bounds (left, top): ImageJ draws every ROI shifted by its own corner',
    violates: '"`GET /api/v1/export/{segmentation_id}/rois.zip` | ZIP of ImageJ-format `.roi` files"',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (!match(exchange, 'GET', ZIP) || answer.status !== 200) return;
      await editZip(answer, (name, roi) => {
        if (!name.endsWith('.roi') || roi.length < 64 || roi.toString('latin1', 0, 4) !== 'Iout')
          return [name, roi];
        const out = Buffer.from(roi);
        const top = out.readInt16BE(8);
        const left = out.readInt16BE(10);
        const n = out.readUInt16BE(16);
        for (let i = 0; i < n; i++) {
          out.writeInt16BE(out.readInt16BE(64 + 2 * i) + left, 64 + 2 * i);
          out.writeInt16BE(out.readInt16BE(64 + 2 * (n + i)) + top, 64 + 2 * (n + i));
        }
        return [name, out];
      });
    },
  },
  {
    id: 'C-ZIP-ENTRIES-NO-EXTENSION',
    area: 'exports',
    description:
      "The ZIP's entries are named `yyyy-xxxx` without `.roi` (the name helper lost its suffix): ImageJ's RoiManager opens only `.roi` entries and finds none",
    violates: '"`GET /api/v1/export/{segmentation_id}/rois.zip` | ZIP of ImageJ-format `.roi` files"',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (!match(exchange, 'GET', ZIP) || answer.status !== 200) return;
      await editZip(answer, (name, roi) => [name.replace(/\.roi$/, ''), roi]);
    },
  },
  {
    id: 'C-PNG-MAX-SIZE-UPSCALES',
    area: 'exports',
    description:
      'overlay.png scales the image to `max_size` whatever its size: a `max_size` larger than the image enlarges it instead of leaving it as is',
    violates:
      'overlay.png `max_size`: "Cap on the longest side in pixels; the image is scaled down preserving its aspect ratio."',
    statedIn: 'document',
    async response(exchange, answer) {
      if (!match(exchange, 'GET', PNG) || answer.status !== 200) return;
      const maxSize = Number(query(exchange).get('max_size'));
      if (!maxSize) return;
      const { width = 0, height = 0 } = await sharp(answer.body).metadata();
      if (Math.max(width, height) >= maxSize) return;
      answer.body = await sharp(answer.body)
        .resize({ width: maxSize, height: maxSize, fit: 'inside', kernel: 'nearest' })
        .png()
        .toBuffer();
    },
  },
  {
    id: 'C-PNG-LOWERCASE-COLOR-REFUSED',
    area: 'exports',
    description:
      '`outline_color` is checked against `^[0-9A-F]{6}$`: a colour in lower-case hex (`ff0000`) is refused 422',
    violates: "overlay.png `outline_color`: `pattern: '^[0-9A-Fa-f]{6}$'` (six hex digits, either case)",
    statedIn: 'document',
    request(exchange) {
      if (!match(exchange, 'GET', PNG)) return;
      const color = query(exchange).get('outline_color');
      if (!color || !/^[0-9A-Fa-f]{6}$/.test(color) || !/[a-f]/.test(color)) return;
      return jsonAnswer(422, {
        detail: [
          {
            loc: ['query', 'outline_color'],
            msg: "String should match pattern '^[0-9A-F]{6}$'",
            type: 'string_pattern_mismatch',
            input: color,
            ctx: { pattern: '^[0-9A-F]{6}$' },
          },
        ],
      });
    },
  },
];
