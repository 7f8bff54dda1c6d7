import type { OperationContext, OperationHandler } from './operation-context.js';

/** What the HTTP layer tells the instance's metrics and asks of them (runtime/metrics/). */
export interface RequestMetrics {
  observeRequest(operation: string, status: number, seconds: number): void;
  /** An upload began; the answer is called when it ends. */
  uploadStarted(): () => void;
  exposition(): Promise<{ contentType: string; text: string }>;
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
