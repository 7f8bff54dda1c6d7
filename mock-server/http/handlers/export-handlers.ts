import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { ExportOf, ExportService } from '../../domain/exports/export-service.js';
import { OverlayOptionError } from '../../engines/exporters/overlay-option-error.js';
import { contentDisposition } from '../content-disposition.js';
import { sendDetail } from '../error-responses.js';
import type { OperationHandler } from '../operation-context.js';
import { validationItem } from '../render/validation-item.js';

export interface ExportUseCases {
  exports: Pick<ExportService, 'measurementsCsv' | 'roisGeojson' | 'roisZip' | 'overlayPng'>;
}

export function exportHandlers({ exports }: ExportUseCases): Record<string, OperationHandler> {
  return {
    async exportMeasurementsCsv({ res, org, params, query }) {
      const csv = await exports.measurementsCsv(org, params.segmentation_id, toList(query.columns));
      await streamAttachment(res, 'text/csv; charset=utf-8', csv, 'measurements.csv');
    },

    async exportRoisGeojson({ res, org, params }) {
      await streamAttachment(
        res,
        'application/geo+json',
        await exports.roisGeojson(org, params.segmentation_id),
        'rois.geojson',
      );
    },

    async exportRoisZip({ res, org, params }) {
      const zip = await exports.roisZip(org, params.segmentation_id);
      res.setHeader('Content-Type', 'application/zip');
      res.setHeader('Content-Disposition', contentDisposition(zip.imageName, 'rois.zip'));
      await pipeline(zip.body, res);
    },

    async exportOverlayPng({ res, org, params, query }) {
      try {
        const png = await exports.overlayPng(org, params.segmentation_id, {
          outlineColor: query.outline_color === undefined ? undefined : `#${String(query.outline_color)}`,
          fillOpacity: query.fill_opacity === undefined ? undefined : Number(query.fill_opacity),
          maxSize: query.max_size === undefined ? undefined : Number(query.max_size),
        });
        res.setHeader('Content-Type', 'image/png');
        res.setHeader('Content-Disposition', contentDisposition(png.imageName, 'overlay.png'));
        res.setHeader('Content-Length', String(png.body.length));
        res.end(png.body);
      } catch (err) {
        if (!(err instanceof OverlayOptionError)) throw err;
        sendDetail(res, 422, [
          validationItem(['query', queryName(err.parameter)], err.message, 'value_error', err.value),
        ]);
      }
    },
  };
}

/** Text exports go out chunk by chunk as they are written, with backpressure; memory stays bounded by a chunk. */
async function streamAttachment(
  res: Response,
  type: string,
  { imageName, body }: ExportOf<Iterable<string>>,
  exportName: string,
): Promise<void> {
  const iterator = body[Symbol.iterator]();
  const first = iterator.next(); // errors of the first chunk still become a normal error response
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Disposition', contentDisposition(imageName, exportName));
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
