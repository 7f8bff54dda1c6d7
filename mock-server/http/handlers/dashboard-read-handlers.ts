import { createReadStream } from 'node:fs';
import type { DashboardReads } from '../../control/dashboard-reads.js';
import type { ReadinessControl } from '../../control/readiness/readiness-control.js';
import { sendFileStream } from '../send-file-stream.js';
import type { OperationHandler } from '../operation-context.js';
import { toDashboardImage, toDashboardModel } from '../render/dashboard.js';
import { toReadinessResource } from '../render/readiness.js';
import { exportHandlers, type ExportUseCases } from './export-handlers.js';

export interface DashboardReadUseCases extends ExportUseCases {
  dashboard: Pick<DashboardReads, 'images' | 'thumbnailPath' | 'models' | 'segmentationOwner'>;
  readiness: Pick<ReadinessControl, 'exposureOfOrganization'>;
  settings: { shareBaseUrl: string };
}

/**
 * Reads the dashboard (/__mock/ui) needs and no other endpoint gives (control/dashboard-reads.ts).
 * Never cached: the page polls them to follow the mock's state.
 */
export function dashboardReadHandlers(useCases: DashboardReadUseCases): Record<string, OperationHandler> {
  const { dashboard, readiness, settings } = useCases;
  const publicExports = exportHandlers(useCases);
  const exportByFile: Record<string, OperationHandler> = {
    'measurements.csv': publicExports.exportMeasurementsCsv,
    'rois.geojson': publicExports.exportRoisGeojson,
    'rois.zip': publicExports.exportRoisZip,
    'overlay.png': publicExports.exportOverlayPng,
  };
  return {
    async mockListImages({ res, query }) {
      const orgId = typeof query.organization_id === 'string' ? query.organization_id : undefined;
      const images = await dashboard.images(orgId, query.limit);
      res.setHeader('Cache-Control', 'no-store');
      res.json(images.map((image) => toDashboardImage(image, settings.shareBaseUrl)));
    },

    async mockImageThumbnail({ res, params }) {
      const file = await dashboard.thumbnailPath(params.image_id);
      res.setHeader('Cache-Control', 'no-store');
      res.type('png');
      sendFileStream(createReadStream(file), res);
    },

    async mockListModels({ res, params }) {
      const models = await dashboard.models(params.organization_id);
      res.setHeader('Cache-Control', 'no-store');
      res.json(models.map(toDashboardModel));
    },

    async mockOrganizationReadiness({ res, params }) {
      const exposure = await readiness.exposureOfOrganization(params.organization_id);
      res.setHeader('Cache-Control', 'no-store');
      res.json(toReadinessResource(params.organization_id, exposure));
    },

    /**
     * The downloads (`GET /__mock/exports/{segmentation_id}/{file}`): the operator holds no
     * organization's key, since keys are never listed after their creation, so the export is served
     * here for the segmentation's owner, by the public route's own handlers with their default options.
     */
    async mockExport(ctx) {
      const org = await dashboard.segmentationOwner(ctx.params.segmentation_id);
      await exportByFile[ctx.params.file]({ ...ctx, org, query: {} });
    },
  };
}
