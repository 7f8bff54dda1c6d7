import type { Exchange, ProxyState, Regression } from '../regression.js';
import { match, memoMap } from '../edit-helpers.js';
import {
  canonicalId,
  isCsv,
  okJson,
  orgOf,
  parseCsv,
  predictionOfSegmentation,
  ROUTES,
  writeCsv,
} from './kit.js';

/** The segmentation an export request names, canonical, and the export's file name. */
function exported(exchange: Exchange) {
  const found = match(exchange, 'GET', ROUTES.export);
  return found ? { segmentation: canonicalId(found[1]), file: found[2] } : undefined;
}

/** Whether the same export with the same options went out before (and is now served as a kept file). */
function servedBefore(exchange: Exchange, name: string, state: ProxyState): boolean {
  const target = exported(exchange);
  if (!target) return false;
  const key = `${target.segmentation}/${target.file}${new URL(exchange.path, 'http://proxy').search}`;
  const served = memoMap<string, true>(state, name);
  const before = served.has(key);
  served.set(key, true);
  return before;
}

/** Set J, the exports. */
export const EXPORTS: Regression[] = [
  {
    id: 'J-CSV-EMPTY-CELL-BLANK-LINE',
    area: 'exports',
    description:
      'The CSV writer writes an empty cell as nothing, so a one-column selection of a column that is empty (`columns=tags`) writes one blank line per ROI, which every CSV reader skips: the file reads as its header and no row',
    violates: '"GET `/api/v1/export/{segmentation_id}/measurements.csv` | CSV, one row per ROI"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!exported(exchange) || !isCsv(answer)) return;
      const lines = answer.body.toString('utf8').split('\r\n');
      if (lines[0].includes(',') || lines[0].includes('"')) return;
      answer.body = Buffer.from(lines.map((line, i) => (i > 0 && line === '""' ? '' : line)).join('\r\n'));
    },
  },
  {
    id: 'J-CSV-SEGMENTATION-ID-IS-PREDICTION',
    area: 'exports',
    description:
      "The CSV row builder fills `segmentation_id` from the run's row (`prediction.id`) instead of its segmentation: every row's `segmentation_id` is the prediction id, which no export or share accepts",
    violates:
      '"`segmentation_id` | uuid | only once `COMPLETED`; pass to `/export/*` and `POST /shares`" (the CSV column of that name)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const runs = memoMap<string, string>(state, 'run-of-segmentation');
      const read = match(exchange, 'GET', ROUTES.prediction) && okJson(answer);
      if (read && typeof read.segmentation_id === 'string')
        runs.set(canonicalId(read.segmentation_id), canonicalId(read.prediction_id));
      const target = exported(exchange);
      const org = orgOf(exchange, state);
      if (!target || !isCsv(answer) || !org) return;
      let run = runs.get(target.segmentation);
      if (!run) run = (await predictionOfSegmentation(state, org.id, target.segmentation))?.prediction_id;
      if (!run) return;
      runs.set(target.segmentation, run);
      answer.body = Buffer.from(answer.body.toString('utf8').split(target.segmentation).join(run));
    },
  },
  {
    id: 'J-CSV-IMAGE-DIMS-SWAPPED',
    area: 'exports',
    description:
      "`image_width` and `image_height` are filled from the converted plane's shape unpacked as (width, height) where it is (height, width): on any image that is not square every row gives the height as the width and the width as the height",
    violates:
      'CSV measurement columns "`image_width`, `image_height`" (each row\'s width is the image\'s width)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const target = exported(exchange);
      if (!target || !isCsv(answer)) return;
      const rows = parseCsv(answer.body.toString('utf8'));
      const width = rows[0]?.indexOf('image_width') ?? -1;
      const height = rows[0]?.indexOf('image_height') ?? -1;
      if ((width < 0 && height < 0) || rows.length < 2) return;
      let size = { width: rows[1][width], height: rows[1][height] };
      if (width < 0 || height < 0) {
        // The other dimension, from the whole file as the backend renders it for itself.
        const whole = await state.upstream('GET', `/__mock/exports/${target.segmentation}/measurements.csv`);
        const [header, first] = isCsv(whole) ? parseCsv(whole.body.toString('utf8')) : [];
        if (!header || !first) return;
        size = { width: first[header.indexOf('image_width')], height: first[header.indexOf('image_height')] };
      }
      for (const row of rows.slice(1)) {
        if (width >= 0) row[width] = size.height;
        if (height >= 0) row[height] = size.width;
      }
      answer.body = Buffer.from(writeCsv(rows));
    },
  },
  {
    id: 'J-EXP-KEPT-FILE-NO-DISPOSITION',
    area: 'exports',
    description:
      'An export already rendered is streamed from its kept file by the static-file handler, which sets no `Content-Disposition`: the first download of each export (and set of options) is an attachment, every later one is not',
    violates:
      '"All exports are for a completed segmentation in the caller\'s organization and are returned as file attachments."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (answer.status !== 200) return;
      if (servedBefore(exchange, 'served-exports', state)) delete answer.headers['content-disposition'];
    },
  },
  {
    id: 'J-GEO-CDN-HIT-OCTET-STREAM',
    area: 'exports',
    description:
      'rois.geojson goes through the CDN, whose stored object has no media type for `.geojson`: the first download (a miss, passed on from the service) is `application/geo+json`, every later one (a hit) `application/octet-stream`',
    violates:
      'exportRoisGeojson 200 (x-assumed): "Content type and file name are not shown; application/geo+json"',
    statedIn: 'document',
    response(exchange, answer, state) {
      if (answer.status !== 200 || exported(exchange)?.file !== 'rois.geojson') return;
      if (servedBefore(exchange, 'cached-geojson', state))
        answer.headers['content-type'] = 'application/octet-stream';
    },
  },
];
