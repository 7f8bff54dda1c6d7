import { loadConfig, type MockConfig } from '../mock-server/config.js';
import { createDecoderPools, type DecoderPools } from '../mock-server/services/decoder-pools.js';
import { startMockServer, type RunningMock } from '../mock-server/server.js';

/** The settings a mock's decoder pools are made with: a test that sets one gets pools of its own. */
const POOL_SETTINGS = [
  'decoderProcesses',
  'workerThreads',
  'decoderMemoryMb',
  'decoderTimeBudgetMs',
] as const;

let shared: DecoderPools | undefined;

/**
 * One pair of decoder pools for every instant mock of this process, on the default limits. A
 * vitest worker runs file after file, each starting and closing its mock: with pools of their own
 * they started about fifty children over a run, each paying Node's start, sharp's load and a cold
 * JIT. Children left idle stop after a minute, and with the worker.
 */
function sharedDecoderPools(): DecoderPools {
  shared ??= createDecoderPools(loadConfig([], {}, {}));
  return shared;
}

/** The mock for tests: a free port, no logs, predictions that move as fast as the work allows. */
export function startInstantMock(overrides: Partial<MockConfig> = {}): Promise<RunningMock> {
  const ownPools = POOL_SETTINGS.some((setting) => setting in overrides);
  return startMockServer(
    {
      port: 0,
      logLevel: 'silent',
      predictionStartDelayMs: 0,
      predictionRunDelayMs: 0,
      ...overrides,
    },
    ownPools ? {} : { decoderPools: sharedDecoderPools() },
  );
}
