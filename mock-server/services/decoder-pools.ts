import type { MockConfig } from '../config.js';
import { createDecoderPool } from '../runtime/decoder-pool/decoder-pools.js';

export type DecoderPools = ReturnType<typeof createDecoderPools>;

/**
 * The two pools of decoder children the services run on (runtime/decoder-pool/decoder-pools.ts),
 * made with the config's decoder settings; none starts a child yet.
 */
export function createDecoderPools(config: MockConfig) {
  const pool = (size: number) =>
    createDecoderPool({
      size,
      memoryCeilingBytes: config.decoderMemoryMb * 1024 ** 2,
      timeBudgetMs: config.decoderTimeBudgetMs,
    });
  return { convert: pool(config.decoderProcesses), segment: pool(config.workerThreads) };
}
