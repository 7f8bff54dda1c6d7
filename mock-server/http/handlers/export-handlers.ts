import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Services } from '../../services.js';
import type { SegmentationRecord } from '../../domain/predictions/prediction-record.js';
import type { ExportContext } from '../../engines/exporters/export-context.js';
import {
  CSV_COLUMNS,
  measurementsCsvChunks,
  unknownColumns,
} from '../../engines/exporters/measurements-csv.js';
import { roisGeoJsonChunks } from '../../engines/exporters/rois-geojson.js';
import { contentDisposition } from '../content-disposition.js';
import { sendDetail } from '../error-responses.js';
import type { OperationHandler } from '../operation-context.js';

// libvips (sharp) and the zip writer load at the first export that needs them, not at start-up:
// most sessions of the mock never ask for an overlay or a ZIP, and the first answer must not wait.
const overlayModule = () => import('../../engines/exporters/overlay-png.js');
const libvips = async () => (await import('../../engines/raster/libvips.js')).default;

export function exportHandlers({ predictions }: Services): Record<string, OperationHandler> {
  return {
    async exportMeasurementsCsv({ res, org, params, query }) {
      const segmentation = predictions.segmentation(org, params.segmentation_id);
      const requested = toList(query.columns);
      const unknown = unknownColumns(requested);
      if (unknown.length) {
        return sendDetail(
          res,
          422,
          `Unknown column(s): ${unknown.map((c) => `'${c}'`).join(', ')}. Valid columns: ${CSV_COLUMNS.join(', ')}`,
        );
      }
      const chunks = measurementsCsvChunks(
        exportContext(segmentation),
        requested.length ? requested : CSV_COLUMNS,
      );
      await streamAttachment(res, 'text/csv; charset=utf-8', segmentation, 'measurements.csv', chunks);
    },

    async exportRoisGeojson({ res, org, params }) {
      const segmentation = predictions.segmentation(org, params.segmentation_id);
      await streamAttachment(
        res,
        'application/geo+json',
        segmentation,
        'rois.geojson',
        roisGeoJsonChunks(exportContext(segmentation)),
      );
    },

    async exportRoisZip({ res, org, params }) {
      const segmentation = predictions.segmentation(org, params.segmentation_id);
      const { roisZipStream } = await import('../../engines/exporters/rois-zip.js');
      const zip = roisZipStream(exportContext(segmentation));
      res.setHeader('Content-Type', 'application/zip');
      res.setHeader('Content-Disposition', contentDisposition(segmentation.imageName, 'rois.zip'));
      await pipeline(zip, res);
    },

    async exportOverlayPng({ res, org, params, query }) {
      const segmentation = predictions.segmentation(org, params.segmentation_id);
      const background = await previewPixels(segmentation);
      const { overlayPng, OverlayOptionError } = await overlayModule();
      try {
        const png = await overlayPng(background, segmentation.result, {
          outlineColor: query.outline_color === undefined ? undefined : `#${String(query.outline_color)}`,
          fillOpacity: query.fill_opacity === undefined ? undefined : Number(query.fill_opacity),
          maxSize: query.max_size === undefined ? undefined : Number(query.max_size),
        });
        sendAttachment(res, 'image/png', segmentation, 'overlay.png', png);
      } catch (err) {
        if (!(err instanceof OverlayOptionError)) throw err;
        sendDetail(res, 422, [
          {
            loc: ['query', queryName(err.parameter)],
            msg: err.message,
            type: 'value_error',
            input: err.value,
            ctx: {},
          },
        ]);
      }
    },
  };
}

export function exportContext(segmentation: SegmentationRecord): ExportContext {
  return {
    imageName: segmentation.imageName,
    imageWidth: segmentation.result.width,
    imageHeight: segmentation.result.height,
    segmentationId: segmentation.id,
    segmentationSource: segmentation.source,
    modelName: segmentation.modelName,
    result: segmentation.result,
    roiIds: segmentation.roiIds,
  };
}

/** The grey preview written at conversion; black when the image had none. */
async function previewPixels(segmentation: SegmentationRecord) {
  const { width, height } = segmentation.result;
  if (!segmentation.previewPath)
    return { width, height, channels: 1 as const, data: new Uint8Array(width * height) };
  const sharp = await libvips();
  const { data, info } = await sharp(await readFile(segmentation.previewPath))
    .removeAlpha()
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    channels: 1 as const,
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
  };
}

function sendAttachment(
  res: Response,
  type: string,
  segmentation: SegmentationRecord,
  exportName: string,
  bytes: Buffer,
): void {
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Disposition', contentDisposition(segmentation.imageName, exportName));
  res.setHeader('Content-Length', String(bytes.length));
  res.end(bytes);
}

/** Text exports go out chunk by chunk as they are written, with backpressure; memory stays bounded by a chunk. */
async function streamAttachment(
  res: Response,
  type: string,
  segmentation: SegmentationRecord,
  exportName: string,
  chunks: Iterable<string>,
): Promise<void> {
  const iterator = chunks[Symbol.iterator]();
  const first = iterator.next(); // errors of the first chunk still become a normal error response
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Disposition', contentDisposition(segmentation.imageName, exportName));
  const rest = (function* () {
    if (!first.done) yield first.value;
    for (let next = iterator.next(); !next.done; next = iterator.next()) yield next.value;
  })();
  await pipeline(Readable.from(rest, { objectMode: false }), res);
}

function toList(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function queryName(parameter: string): string {
  return (
    { outlineColor: 'outline_color', fillOpacity: 'fill_opacity', maxSize: 'max_size' }[parameter] ??
    parameter
  );
}
