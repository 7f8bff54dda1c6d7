import type { RequestMetrics } from '../request-metrics.js';
import type { OperationHandler } from '../operation-context.js';

export interface MetricsUseCases {
  metrics: Pick<RequestMetrics, 'exposition'>;
}

/** `GET /metrics`: the instance's metrics in Prometheus' text format, as its client library writes them. */
export function metricsHandlers({ metrics }: MetricsUseCases): Record<string, OperationHandler> {
  return {
    async mockMetrics({ res }) {
      const { contentType, text } = await metrics.exposition();
      res.setHeader('Content-Type', contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(text);
    },
  };
}
