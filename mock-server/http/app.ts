import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Services } from '../services.js';
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
import { createDispatcher, createOpenApiBackend } from './openapi-dispatcher.js';
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
import { dashboardReadHandlers } from './handlers/dashboard-read-handlers.js';

/**
 * The whole HTTP surface: CORS in front of everything; storage for presigned parts; the document and
 * its reference (/openapi.json, /docs); 405 for known paths asked with another method; then every
 * operation of the document.
 */
export async function createApp(
  services: Services,
  logger: Logger,
  /** Aborted when the server begins a graceful stop. */
  stopping?: AbortSignal,
): Promise<express.Express> {
  addServerRoot(services.config.dataDir);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestLog(logger, services.journal));
  const api = await createOpenApiBackend();
  for (const op of api.getOperations()) services.operationIds.add(op.operationId as string);
  const storagePath = new URL(services.config.storageUrl).pathname.replace(/\/$/, '') || '/storage';
  const embeddedStore = services.store.partReceiver;
  const routes = new RouteTable([
    ...(embeddedStore ? storageRoutes(storagePath) : []),
    ...referenceRoutes(),
    ...operationRoutes(api.getOperations()),
  ]);

  const discardLimits = {
    ...DEFAULT_DISCARD_LIMITS,
    maxBytes: services.config.maxDiscardedBodyBytes,
    stop: stopping,
  };
  app.use(cors(parseCorsOrigins(services.config.corsOrigins), routes));
  if (embeddedStore) {
    app.use(
      storagePath,
      createStorageRouter(embeddedStore, { stallTimeoutMs: services.config.idleTimeoutMs, discardLimits }),
    );
  }
  app.use(createReferenceRouter({ publicBaseUrl: services.config.publicBaseUrl }));
  app.use(dashboardRoutes(services));
  app.use(methodNotAllowed(routes, discardLimits));
  app.use(
    createDispatcher(api, {
      state: services.state,
      adminToken: services.config.adminToken,
      faults: services.faults,
      streamingOperations: new Set(['uploadImage']),
      jsonLimits: {
        maxBytes: services.config.maxJsonBodyBytes,
        maxDepth: services.config.maxJsonDepth,
        maxKeys: services.config.maxJsonKeys,
      },
      discardLimits,
      handlers: withCanonicalIds(api.getOperations(), {
        ...uploadHandlers(services, discardLimits),
        ...imageHandlers(services),
        ...modelHandlers(services),
        ...predictionHandlers(services),
        ...exportHandlers(services),
        ...shareHandlers(services),
        ...sharePageHandlers(services),
        ...internalHandlers,
        ...controlHandlers(services),
        ...dashboardReadHandlers(services),
      }),
    }),
  );

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error({ err, reqId: res.locals.requestId, path: req.path }, 'unhandled error');
    sendDetail(res, 500, `Internal Server Error (request id ${String(res.locals.requestId)})`);
  });
  return app;
}
