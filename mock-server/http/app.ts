import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { sendDetail } from './error-responses.js';
import { exportHandlers } from './handlers/export-handlers.js';
import { imageHandlers } from './handlers/image-handlers.js';
import { internalHandlers } from './handlers/internal-handlers.js';
import { modelHandlers } from './handlers/model-handlers.js';
import { predictionHandlers } from './handlers/prediction-handlers.js';
import { sharePageHandlers } from './handlers/share-page-handlers.js';
import { shareHandlers } from './handlers/share-handlers.js';
import { uploadHandlers } from './handlers/upload-handlers.js';
import { withCanonicalIds } from './canonical-ids.js';
import { documentOperations } from './document-operations.js';
import { createDispatcher } from './openapi-dispatcher.js';
import { requestLog } from './request-log.js';
import { addServerRoot } from './server-paths.js';
import { createStorageRouter, storageRoutes } from './storage/storage-router.js';
import { cors, parseCorsOrigins } from './cors.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { DEFAULT_DISCARD_LIMITS } from './discard-rest.js';
import { RouteTable, operationRoutes } from './route-table.js';
import { createReferenceRouter, referenceRoutes } from './reference-routes.js';
import { controlHandlers } from './handlers/control-handlers.js';
import { dashboardRoutes } from './handlers/dashboard-routes.js';
import { snapshotHandlers } from './handlers/snapshot-handlers.js';
import { controlExportHandlers } from './handlers/control-export-handlers.js';
import { dashboardReadHandlers } from './handlers/dashboard-read-handlers.js';
import { selfServicePlanHandlers } from './handlers/self-service-plan-handlers.js';
import type { HttpUseCases } from './use-cases.js';

/**
 * The whole HTTP surface: CORS in front of everything; storage for presigned parts; the document and
 * its reference (/openapi.json, /docs); 405 for known paths asked with another method; then every
 * operation of the document.
 */
export function createApp(
  useCases: HttpUseCases,
  logger: Logger,
  /** Aborted when the server begins a graceful stop. */
  stopping?: AbortSignal,
): express.Express {
  const { settings } = useCases;
  addServerRoot(settings.dataDir);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(
    requestLog(logger, useCases.journal, { successes: settings.logRequests === 'all' ? 'info' : 'debug' }),
  );
  const operations = documentOperations();
  const operationIds = new Set(operations.map((op) => op.operationId));
  const storagePath = new URL(settings.storageUrl).pathname.replace(/\/$/, '') || '/storage';
  const embeddedStore = useCases.store.partReceiver;
  const routes = new RouteTable([
    ...(embeddedStore ? storageRoutes(storagePath) : []),
    ...referenceRoutes(),
    ...operationRoutes(operations),
  ]);

  const discardLimits = {
    ...DEFAULT_DISCARD_LIMITS,
    maxBytes: settings.maxDiscardedBodyBytes,
    stop: stopping,
  };
  app.use(cors(parseCorsOrigins(settings.corsOrigins), routes));
  if (embeddedStore) {
    app.use(
      storagePath,
      createStorageRouter(embeddedStore, { stallTimeoutMs: settings.idleTimeoutMs, discardLimits }),
    );
  }
  app.use(createReferenceRouter({ publicBaseUrl: settings.publicBaseUrl }));
  app.use(dashboardRoutes(useCases, { operationIds, adminToken: settings.adminToken }));
  app.use(methodNotAllowed(routes, discardLimits));
  app.use(
    createDispatcher(operations, {
      keys: useCases.keys,
      rateLimit: useCases.rateLimit,
      adminToken: settings.adminToken,
      faults: useCases.faults,
      clock: useCases.timekeeper,
      streamingOperations: new Set(['uploadImage', 'mockLoadSnapshot']),
      jsonLimits: {
        maxBytes: settings.maxJsonBodyBytes,
        maxDepth: settings.maxJsonDepth,
        maxKeys: settings.maxJsonKeys,
      },
      discardLimits,
      handlers: withCanonicalIds(operations, {
        ...uploadHandlers(useCases, discardLimits),
        ...imageHandlers(useCases),
        ...modelHandlers(useCases),
        ...predictionHandlers(useCases),
        ...exportHandlers(useCases),
        ...shareHandlers(useCases),
        ...sharePageHandlers(useCases),
        ...internalHandlers,
        ...controlHandlers(useCases, operationIds),
        ...dashboardReadHandlers(useCases),
        ...controlExportHandlers(useCases),
        ...selfServicePlanHandlers(useCases),
        ...snapshotHandlers(useCases, discardLimits),
      }),
    }),
  );

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error({ err, reqId: res.locals.requestId, path: req.path }, 'unhandled error');
    sendDetail(res, 500, `Internal Server Error (request id ${String(res.locals.requestId)})`);
  });
  return app;
}
