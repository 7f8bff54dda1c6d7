/**
 * The prediction service's SegmentationRunner, on a pool of child processes: the image's plane is
 * read (or the stored TIFF decoded) and segmented in a child (decoder-tasks.ts `segment`), so neither a hostile file nor a
 * long segmentation touches the server's process or its event loop. Cancelling the signal
 * cancels the job in the child (the model checks it between steps).
 */
import type { ModelRecord } from '../../domain/models/model-record.js';
import type { SegmentationSource } from '../../domain/images/derived-files.js';
import type { SegmentationRunner } from '../../domain/predictions/prediction-service.js';
import type { ModelSpec, SegmentTask } from '../../engines/models/segment-task.js';
import type { SegmentationResult } from '../../engines/segmentation/types.js';
import type { ChildProcessPool } from './child-process-pool.js';

export class ChildProcessSegmentationRunner implements SegmentationRunner {
  constructor(
    private readonly pool: ChildProcessPool,
    private readonly limits: { maxPixels: number; maxDecodedBytes: number },
  ) {}

  run(model: ModelRecord, source: SegmentationSource, signal: AbortSignal): Promise<SegmentationResult> {
    const task: SegmentTask = { source, model: toSpec(model), ...this.limits };
    return this.pool.run<SegmentationResult>('segment', task, signal);
  }

  /** Fresh children, so a reset hands back the memory theirs grew to. Call with no job running. */
  recycle(): Promise<void> {
    return this.pool.recycle();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

export function toSpec({ name, version, engine }: ModelRecord): ModelSpec {
  return { name, version, ...engine };
}
