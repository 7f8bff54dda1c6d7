import JSZip from 'jszip';
import sharp from 'sharp';
import { bearer, isJson, memoMap, readJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';
import { EXPORT } from './shared.js';

interface Validator {
  etag: string;
  /** The key whose download put the tag in the index. */
  owner: string;
}

/** The export named by the request (`measurements.csv`, `rois.zip`...) when it is a GET of one. */
function exportOf(exchange: Exchange): { segmentation: string; file: string } | undefined {
  if (exchange.method !== 'GET') return undefined;
  const found = new URL(exchange.path, 'http://proxy').pathname.match(EXPORT);
  return found ? { segmentation: found[1].toLowerCase(), file: found[2] } : undefined;
}

/** Each .roi header's bottom and right (big-endian int16 at 12 and 14) one less: inclusive bounds. */
async function inclusiveBounds(answer: Answer): Promise<void> {
  const zip = await JSZip.loadAsync(answer.body);
  for (const name of Object.keys(zip.files).filter((entry) => entry.endsWith('.roi'))) {
    const roi = Buffer.from(await zip.file(name)!.async('uint8array'));
    roi.writeInt16BE(roi.readInt16BE(12) - 1, 12);
    roi.writeInt16BE(roi.readInt16BE(14) - 1, 14);
    zip.file(name, roi);
  }
  answer.body = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** Files derived from a completed segmentation, and their validators. */
export const EXPORT_REGRESSIONS: Regression[] = [
  {
    id: 'F-ZIP-BOUNDS-INCLUSIVE',
    area: 'exports',
    description:
      "The ROI encoder writes each header's `bottom` and `right` as the last row and column inside the cell (inclusive, numpy-style) where ImageJ wants them one past: every ROI's bounds are one pixel short",
    violates: '"GET `/api/v1/export/{segmentation_id}/rois.zip` | ZIP of ImageJ-format `.roi` files"',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (exportOf(exchange)?.file !== 'rois.zip' || answer.status !== 200) return;
      await inclusiveBounds(answer);
    },
  },
  {
    id: 'F-GEO-FEATURE-ID-INDEX',
    area: 'exports',
    description:
      "Each GeoJSON feature's `id` is its `roi_index` (the integer the tracer numbers cells with) instead of the ROI's uuid: ids collide across segmentations and match no `roi_id` of the CSV",
    violates:
      'components.schemas.FeatureCollection: `features[].id` `type: string, format: uuid` (the `roi_id`)',
    statedIn: 'document',
    response(exchange, answer) {
      if (exportOf(exchange)?.file !== 'rois.geojson' || answer.status !== 200) return;
      const collection = JSON.parse(answer.body.toString('utf8')) as {
        features: Array<{ id?: unknown; properties: { roi_index?: number } }>;
      };
      for (const feature of collection.features) feature.id = feature.properties.roi_index;
      answer.body = Buffer.from(JSON.stringify(collection));
    },
  },
  {
    id: 'F-CSV-UNKNOWN-COLUMN-400',
    area: 'exports',
    description:
      'An unknown CSV column is raised as a generic bad-request error: 400 (same detail) instead of the 422 the document gives it',
    violates:
      'exportMeasurementsCsv 422: "an unknown column: then `detail` is a string that names each unknown column and lists the valid ones"',
    statedIn: 'document',
    response(exchange, answer) {
      if (exportOf(exchange)?.file !== 'measurements.csv' || answer.status !== 422 || !isJson(answer)) return;
      if (typeof readJson<{ detail: unknown }>(answer).detail === 'string') answer.status = 400;
    },
  },
  {
    id: 'F-EXP-ETAG-WEAK',
    area: 'exports',
    description:
      'The gzip middleware in front of the exports weakens every ETag it passes (`W/"..."`), compressed or not: the exports no longer carry a strong validator',
    violates:
      'components.headers.ExportETag: "A strong validator of the export\'s bytes" (`pattern: ^"[^"]*"$`)',
    statedIn: 'document',
    response(exchange, answer) {
      const etag = answer.headers.etag;
      if (exportOf(exchange) && etag && !etag.startsWith('W/')) answer.headers.etag = `W/${etag}`;
    },
  },
  {
    id: 'F-EXP-FILENAME-ASCII-ONLY',
    area: 'exports',
    description:
      'The attachment header lost its RFC 5987 `filename*` (a framework upgrade changed the helper): an image named with non-ASCII letters downloads as `Zellen___measurements.csv`',
    violates:
      'components.headers.ContentDisposition: `attachment; filename="<image name>_<export>"` (the image\'s name)',
    statedIn: 'document',
    response(exchange, answer) {
      const disposition = answer.headers['content-disposition'];
      if (!exportOf(exchange) || !disposition) return;
      answer.headers['content-disposition'] = disposition.replace(/;\s*filename\*=[^;]*/i, '');
    },
  },
  {
    id: 'F-EXP-304-BEFORE-ORG-CHECK',
    area: 'exports',
    description:
      "Conditional export requests are answered from an ETag index by path before the segmentation is looked up in the caller's organization: another organization that sends the ETag gets 304 instead of 404",
    violates:
      '"All resources are confined to the organization that owns the API key; a resource outside it is reported as 404."',
    statedIn: 'interface',
    async request(exchange, state) {
      const held = exchange.headers.get('if-none-match');
      const known = exportOf(exchange) && memoMap<string, Validator>(state, 'etags').get(exchange.path);
      if (!held || !known || known.owner === bearer(exchange)) return;
      const bare = (tag: string) => tag.trim().replace(/^W\//, '');
      if (!held.split(',').some((tag) => bare(tag) === bare(known.etag))) return;
      // The index holds the tag while the export exists: what the owner would be answered.
      const owner = await state.upstream('GET', exchange.path, { key: known.owner });
      if (owner.status === 200) return { status: 304, headers: { etag: known.etag }, body: Buffer.alloc(0) };
    },
    response(exchange, answer, state) {
      if (exportOf(exchange) && answer.status === 200 && answer.headers.etag)
        memoMap<string, Validator>(state, 'etags').set(exchange.path, {
          etag: answer.headers.etag,
          owner: bearer(exchange) ?? '',
        });
    },
  },
  {
    id: 'F-PNG-RGBA',
    area: 'exports',
    description:
      'The overlay is drawn on a canvas and saved as it is: an RGBA PNG (colour type 6, with an alpha channel) instead of the 8-bit RGB presentation image',
    violates:
      '"The overlay PNG is a presentation RGB image; it does not preserve the original TIFF bit depth or scientific metadata."',
    statedIn: 'interface',
    async response(exchange, answer) {
      if (exportOf(exchange)?.file !== 'overlay.png' || answer.status !== 200) return;
      answer.body = await sharp(answer.body).ensureAlpha().png().toBuffer();
    },
  },
  {
    id: 'F-CSV-QUOTE-BACKSLASH',
    area: 'exports',
    description:
      'The CSV writer escapes a double quote inside a quoted cell as `\\"` (the JSON habit of its hand-written quoting) instead of doubling it: a name with a quote shifts every later column of its rows',
    violates:
      '"GET `/api/v1/export/{segmentation_id}/measurements.csv` | CSV, one row per ROI" (with the columns the interface lists)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (exportOf(exchange)?.file !== 'measurements.csv' || answer.status !== 200) return;
      const text = answer.body.toString('utf8');
      answer.body = Buffer.from(
        text.replace(/"((?:[^"]|"")*)"/g, (_cell, inner: string) => `"${inner.replace(/""/g, '\\"')}"`),
      );
    },
  },
];
