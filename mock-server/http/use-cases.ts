import type { MockConfig } from '../config.js';
import type { RequestJournal } from '../control/request-journal.js';
import type { MockClock } from '../domain/clock.js';
import type { RequestRateLimit } from '../domain/abuse-limits.js';
import type { ObjectStore } from '../domain/object-store.js';
import type { StateStore } from '../domain/state.js';
import type { ControlUseCases } from './handlers/control-handlers.js';
import type { DashboardReadUseCases } from './handlers/dashboard-read-handlers.js';
import type { ExportUseCases } from './handlers/export-handlers.js';
import type { ImageUseCases } from './handlers/image-handlers.js';
import type { ModelUseCases } from './handlers/model-handlers.js';
import type { PredictionUseCases } from './handlers/prediction-handlers.js';
import type { SharePageUseCases } from './handlers/share-page-handlers.js';
import type { ShareUseCases } from './handlers/share-handlers.js';
import type { SelfServicePlanUseCases } from './handlers/self-service-plan-handlers.js';
import type { SnapshotUseCases } from './handlers/snapshot-handlers.js';
import type { UploadUseCases } from './handlers/upload-handlers.js';
import type { MetricsUseCases } from './handlers/metrics-handlers.js';
import type { RequestMetrics } from './request-metrics.js';

/** The settings the HTTP layer reads, and where a single-request upload's file is received. */
export type HttpSettings = Pick<
  MockConfig,
  | 'dataDir'
  | 'storageUrl'
  | 'publicBaseUrl'
  | 'shareBaseUrl'
  | 'adminToken'
  | 'corsOrigins'
  | 'idleTimeoutMs'
  | 'maxUploadBytes'
  | 'maxDiscardedBodyBytes'
  | 'minPartSize'
  | 'maxJsonBodyBytes'
  | 'maxJsonDepth'
  | 'maxJsonKeys'
  | 'logRequests'
> & { incomingDir: string };

/**
 * Everything the HTTP layer calls, declared here next to it: each handler file names the use cases
 * it calls (its `...UseCases` interface), and the composition root (http-wiring.ts, `createHttpApp`)
 * hands them in. http/ never sees the wiring itself.
 */
export type HttpUseCases = UploadUseCases &
  ImageUseCases &
  ModelUseCases &
  PredictionUseCases &
  ExportUseCases &
  ShareUseCases &
  SharePageUseCases &
  ControlUseCases &
  DashboardReadUseCases &
  SelfServicePlanUseCases &
  SnapshotUseCases &
  MetricsUseCases & {
    settings: HttpSettings;
    /** Every request is counted by operation and status for `GET /metrics`. */
    metrics: RequestMetrics;
    /** What each request reads of the state before its operation: its key's organization, the clocks, the faults. */
    sharedReads: Pick<StateStore, 'requestReads'>;
    /** Requests per API key per second, counted in the state store. */
    rateLimit: Pick<RequestRateLimit, 'admit'>;
    /** Every request is recorded for the control plane's journal. */
    journal: Pick<RequestJournal, 'record'>;
    /** The mock's clock, read again from the state store at the start of every request. */
    timekeeper: Pick<MockClock, 'refresh'>;
    store: ObjectStore;
  };
