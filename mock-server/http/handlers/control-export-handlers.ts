import type { DashboardReads } from '../../control/dashboard-reads.js';
import type { OperationHandler } from '../operation-context.js';
import { exportHandlers, type ExportUseCases } from './export-handlers.js';

export interface ControlExportUseCases extends ExportUseCases {
  dashboard: Pick<DashboardReads, 'segmentationOwner'>;
}

/**
 * The dashboard's downloads (`GET /__mock/exports/{segmentation_id}/{file}`): the operator holds no
 * organization's key, since keys are never listed after their creation, so the export is served
 * here for the segmentation's owner, by the public route's own handlers with their default options.
 */
export function controlExportHandlers(useCases: ControlExportUseCases): Record<string, OperationHandler> {
  const publicExports = exportHandlers(useCases);
  const byFile: Record<string, OperationHandler> = {
    'measurements.csv': publicExports.exportMeasurementsCsv,
    'rois.geojson': publicExports.exportRoisGeojson,
    'rois.zip': publicExports.exportRoisZip,
    'overlay.png': publicExports.exportOverlayPng,
  };
  return {
    async mockExport(ctx) {
      const org = await useCases.dashboard.segmentationOwner(ctx.params.segmentation_id);
      await byFile[ctx.params.file]({ ...ctx, org, query: {} });
    },
  };
}
