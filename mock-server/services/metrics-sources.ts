import type { StateStore } from '../domain/state.js';
import type { JobWorker } from '../domain/jobs/job-worker.js';
import { InstanceMetrics } from '../runtime/metrics/instance-metrics.js';
import type { DecoderPools } from './decoder-pools.js';

/** This instance's metrics, each read from the part that knows it when /metrics is asked. */
export function instanceMetrics(state: StateStore, worker: JobWorker, pools: DecoderPools): InstanceMetrics {
  const pooled = state as StateStore & { poolUse?: () => { waiting: number; waits: number } };
  return new InstanceMetrics({
    jobsQueued: () => state.jobs.count(),
    jobsLeased: () => worker.leases.held,
    jobLeasesLost: () => worker.leases.lost,
    // Only the PostgreSQL store has a pool of connections to wait for.
    databasePool: pooled.poolUse && (() => pooled.poolUse!()),
    decoderPools: () => ({ convert: pools.convert.use, segment: pools.segment.use }),
  });
}
