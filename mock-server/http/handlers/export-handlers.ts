import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExportAnswer, ExportService } from '../../domain/exports/export-service.js';
import { OverlayOptionError } from '../../engines/exporters/overlay-options.js';
import { contentDisposition } from '../content-disposition.js';
import { sendDetail } from '../error-responses.js';
import { ifNoneMatchHolds } from '../if-none-match.js';
import { parameterNumber } from '../lax-numbers.js';
import { sendSizedBody } from '../send-sized-body.js';
import type { OperationHandler } from '../operation-context.js';
import { validationItem } from '../render/validation-item.js';

export interface ExportUseCases {
  exports: Pick<ExportService, 'measurementsCsv' | 'roisGeojson' | 'roisZip' | 'overlayPng'>;
}

export function exportHandlers({ exports }: ExportUseCases): Record<string, OperationHandler> {
  return {
    async exportMeasurementsCsv({ req, res, org, params, query }) {
      const csv = await exports.measurementsCsv(org, params.segmentation_id, toList(query.columns));
      await sendExport(req, res, csv, 'text/csv; charset=utf-8', 'measurements.csv');
    },

    async exportRoisGeojson({ req, res, org, params }) {
      const geojson = await exports.roisGeojson(org, params.segmentation_id);
      await sendExport(req, res, geojson, 'application/geo+json', 'rois.geojson');
    },

    async exportRoisZip({ req, res, org, params }) {
      const zip = await exports.roisZip(org, params.segmentation_id);
      await sendExport(req, res, zip, 'application/zip', 'rois.zip');
    },

    async exportOverlayPng({ req, res, org, params, query }) {
      let png: ExportAnswer;
      try {
        png = await exports.overlayPng(org, params.segmentation_id, {
          outlineColor: query.outline_color === undefined ? undefined : `#${String(query.outline_color)}`,
          // read as the validation read them (pydantic's rules), not by Number: `1_000` is 1000
          fillOpacity: parameterNumber('number', query.fill_opacity),
          maxSize: parameterNumber('integer', query.max_size),
        });
      } catch (err) {
        if (!(err instanceof OverlayOptionError)) throw err;
        sendDetail(res, 422, [
          validationItem(['query', queryName(err.parameter)], err.message, 'value_error', err.value),
        ]);
        return;
      }
      await sendExport(req, res, png, 'image/png', 'overlay.png');
    },
  };
}

/**
 * A kept export, streamed from its file with its length and strong ETag; a client that already
 * holds those bytes (If-None-Match) gets 304 and no body (RFC 9110 13.1.2).
 */
async function sendExport(
  req: IncomingMessage,
  res: ServerResponse,
  answer: ExportAnswer,
  type: string,
  exportName: string,
): Promise<void> {
  res.setHeader('ETag', answer.etag);
  if (ifNoneMatchHolds(req.headers['if-none-match'], answer.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const body = await answer.open(); // a failure here is still a normal error answer
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Disposition', contentDisposition(answer.imageName, exportName));
  res.setHeader('Content-Length', String(answer.size));
  await sendSizedBody(body, res, answer.size);
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
