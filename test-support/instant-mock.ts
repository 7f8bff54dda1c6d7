import type { MockConfig } from '../mock-server/config.js';
import { startMockServer, type RunningMock } from '../mock-server/server.js';

/** The mock for tests: a free port, no logs, predictions that move as fast as the work allows. */
export function startInstantMock(overrides: Partial<MockConfig> = {}): Promise<RunningMock> {
  return startMockServer({
    port: 0,
    logLevel: 'silent',
    predictionStartDelayMs: 0,
    predictionRunDelayMs: 0,
    ...overrides,
  });
}
