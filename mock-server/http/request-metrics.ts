import type { RequestStage } from './request-pipeline.js';
import type { OperationContext, OperationHandler } from './operation-context.js';

/** What the HTTP layer tells the instance's metrics and asks of them (runtime/metrics/). */
export interface RequestMetrics {
  observeRequest(operation: string, status: number, seconds: number): void;
  /** An upload began; the answer is called when it ends. */
  uploadStarted(): () => void;
  exposition(): Promise<{ contentType: string; text: string }>;
}

/** The operation label of a request no document operation took (storage, /docs, 404s). */
const NO_OPERATION = 'none';

/**
 * Counts every request by the operation routing named (`res.locals.operationId`) and its status,
 * and observes its latency, when its answer closes: one counter increment and one histogram
 * observation a request. A connection closed before the answer counts as status 0.
 */
export function requestMetrics(metrics: Pick<RequestMetrics, 'observeRequest'>): RequestStage {
  return (req, res) => {
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const operation = (res.locals.operationId as string | undefined) ?? NO_OPERATION;
      metrics.observeRequest(operation, res.writableFinished ? res.statusCode : 0, seconds);
    });
    return false;
  };
}

/** The upload handler, counted in the uploads in flight while it receives and converts a file. */
export function countedUpload(handler: OperationHandler, metrics: Pick<RequestMetrics, 'uploadStarted'>) {
  return async function countedUploadImage(ctx: OperationContext): Promise<void> {
    const ended = metrics.uploadStarted();
    try {
      await handler(ctx);
    } finally {
      ended();
    }
  };
}
