import type { MockConfig } from '../config.js';
import type { ChildProcessPool } from '../runtime/decoder-pool/child-process-pool.js';
import { createDecoderPool } from '../runtime/decoder-pool/decoder-pools.js';

/** The two pools of decoder children the services run on (runtime/decoder-pool/decoder-pools.ts). */
export interface DecoderPools {
  convert: ChildProcessPool;
  segment: ChildProcessPool;
}

/** The two pools a mock runs on, made with the config's decoder settings; none starts a child yet. */
export function createDecoderPools(config: MockConfig): DecoderPools {
  const pool = (size: number) =>
    createDecoderPool({
      size,
      memoryCeilingBytes: config.decoderMemoryMb * 1024 ** 2,
      timeBudgetMs: config.decoderTimeBudgetMs,
    });
  return { convert: pool(config.decoderProcesses), segment: pool(config.workerThreads) };
}
