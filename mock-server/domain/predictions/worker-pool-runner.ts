import { Piscina } from 'piscina';
import type { ModelRecord } from '../models/model-record.js';
import type { SegmentationRunner } from './prediction-service.js';
import type { SegmentationResult } from '../../engines/segmentation/types.js';
import type { ModelSpec, SegmentTask } from '../../engines/models/segment-task.js';

/** Runs segmentations in worker threads so the event loop keeps answering polls while cells are traced. */
export class WorkerPoolRunner implements SegmentationRunner {
  private pool: Piscina;

  constructor(
    private readonly threads: number,
    private readonly maxPixels: number,
  ) {
    this.pool = this.newPool();
  }

  private newPool(): Piscina {
    return new Piscina({
      filename: new URL('../../engines/models/segment-worker.mjs', import.meta.url).href,
      // one warm worker: starting one costs ~1.8 s (tsx compiles the engines) on the first prediction
      minThreads: 1,
      maxThreads: Math.max(1, this.threads),
      idleTimeout: 60_000,
    });
  }

  /**
   * Fresh workers, so a reset hands back the memory their heaps grew to; a worker's heap is its
   * own and no collection in the main thread reaches it. Call with no job running.
   */
  async recycle(): Promise<void> {
    const old = this.pool;
    this.pool = this.newPool();
    await old.close({ force: true });
  }

  run(model: ModelRecord, tiffPath: string, signal: AbortSignal): Promise<SegmentationResult> {
    const task: SegmentTask = { tiffPath, model: toSpec(model), maxPixels: this.maxPixels };
    return this.pool.run(task, { signal });
  }

  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
}

export function toSpec(model: ModelRecord): ModelSpec {
  const { name, version, engine } = model;
  return engine.kind === 'remote'
    ? { kind: 'remote', name, version, url: engine.url, timeoutMs: engine.timeoutMs, params: engine.params }
    : { kind: 'threshold', name, version, params: engine.params };
}
