/**
 * The two pools the server runs: one converting uploads, one running segmentations, both on
 * decoder-tasks.ts. Separate pools, so a queue of hostile uploads never delays a prediction and a
 * long segmentation never delays an upload's answer. The tasks module is named by URL only: the
 * server's own process never loads the decoding code.
 */
import { ChildProcessPool } from './child-process-pool.js';

// decoder-tasks.ts from the sources, decoder-tasks.js once built into dist/.
const DECODER_TASKS_MODULE = new URL(
  `./decoder-tasks${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`,
  import.meta.url,
);

export interface DecoderPoolSettings {
  /** Children at most. */
  size: number;
  /** Children started at once and kept. */
  warm: number;
  memoryCeilingBytes: number;
  timeBudgetMs: number;
}

export function createDecoderPool(settings: DecoderPoolSettings): ChildProcessPool {
  return new ChildProcessPool({ tasksModule: DECODER_TASKS_MODULE, ...settings });
}
