import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { exportHandlers } from './handlers/export-handlers.js';
import { imageHandlers } from './handlers/image-handlers.js';
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
import { storageRoutes, storageStage } from './storage/storage-router.js';
import { cors, parseCorsOrigins } from './cors.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { DEFAULT_DISCARD_LIMITS } from './discard-rest.js';
import { planParts } from '../domain/images/upload-plan.js';
import { RouteTable, operationRoutes } from './route-table.js';
import { referenceRoutes, referenceStage } from './reference-routes.js';
import { controlHandlers } from './handlers/control-handlers.js';
import { dashboardRoutes } from './handlers/dashboard-routes.js';
import { snapshotHandlers } from './handlers/snapshot-handlers.js';
import { dashboardReadHandlers } from './handlers/dashboard-read-handlers.js';
import { selfServicePlanHandlers } from './handlers/self-service-plan-handlers.js';
import type { HttpUseCases } from './use-cases.js';
import { failureAnswer } from './failure-answer.js';
import { requestPipeline, type RequestStage } from './request-pipeline.js';
import { countedUpload } from './request-metrics.js';
import { metricsHandlers } from './handlers/metrics-handlers.js';

/**
 * The whole HTTP surface as one request function on node:http: the request's log line, journal
 * entry and metrics; CORS in front of everything; storage for presigned parts; the document and its reference
 * (/openapi.json, /docs); the dashboard; 405 for known paths asked with another method; then every
 * operation of the document. Whatever throws is a 500 with its request id, never a crash. One
 * route table (route-table.ts) answers for every path: the dispatcher's routing, the 405's `Allow`
 * and the methods of a CORS preflight.
 *
 * No framework: express alone reached only 0.15-0.23x of a bare node:http server in the benchmark,
 * below the 0.35x the mock is asked for, and the dispatcher already routes and validates. Fastify,
 * measured beside it, spends 7-25 us of CPU a request less than the mock while doing none of its
 * key, rate, clock and journal work (docs/benchmarks.md): too little to pay for a rewrite.
 */
export function createApp(
  useCases: HttpUseCases,
  logger: Logger,
  /** Aborted when the server begins a graceful stop. */
  stopping?: AbortSignal,
): RequestListener {
  const { settings } = useCases;
  addServerRoot(settings.dataDir);
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
  const uploads = uploadHandlers(useCases, discardLimits);
  const stages: RequestStage[] = [
    requestLog(logger, useCases.journal, useCases.metrics, {
      successes: settings.logRequests === 'all' ? 'info' : 'debug',
    }),
    cors(parseCorsOrigins(settings.corsOrigins), routes),
  ];
  if (embeddedStore) {
    const storageOptions = {
      stallTimeoutMs: settings.idleTimeoutMs,
      discardLimits,
      largestPart: planParts(settings.maxUploadBytes, settings.minPartSize).partSize,
      // A part URL expires by the mock's clock, which another instance may have moved.
      refreshClock: () => useCases.timekeeper.refresh(),
    };
    stages.push(storageStage(embeddedStore, storagePath, storageOptions));
  }
  stages.push(
    referenceStage({ publicBaseUrl: settings.publicBaseUrl }),
    dashboardRoutes(operationIds),
    methodNotAllowed(routes, discardLimits),
    createDispatcher(routes, operations, {
      ...useCases,
      adminToken: settings.adminToken,
      jsonLimits: {
        maxBytes: settings.maxJsonBodyBytes,
        maxDepth: settings.maxJsonDepth,
        maxKeys: settings.maxJsonKeys,
      },
      discardLimits,
      handlers: withCanonicalIds(operations, {
        ...uploads,
        uploadImage: countedUpload(uploads.uploadImage, useCases.metrics),
        ...imageHandlers(useCases),
        ...modelHandlers(useCases),
        ...predictionHandlers(useCases),
        ...exportHandlers(useCases),
        ...shareHandlers(useCases),
        ...sharePageHandlers(useCases),
        ...controlHandlers(useCases, operationIds),
        ...dashboardReadHandlers(useCases),
        ...selfServicePlanHandlers(useCases),
        ...snapshotHandlers(useCases, discardLimits),
        ...metricsHandlers(useCases),
      }),
    }),
  );
  return requestPipeline(stages, failureAnswer(logger));
}
