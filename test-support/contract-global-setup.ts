import type { TestProject } from 'vitest/node';
import { startMockServer, type RunningMock } from '../mock-server/server.js';

/**
 * Starts the mock in this process on an ephemeral port for the contract suite, unless a target is
 * given with CONTRACT_BASE_URL. It lives outside contract-tests/ because the suite itself never
 * imports the mock: it only receives a base URL.
 */
let mock: RunningMock | undefined;

export async function setup(project: TestProject): Promise<void> {
  if (process.env.CONTRACT_BASE_URL) {
    project.provide('mockBaseUrl', '');
    return;
  }
  mock = await startMockServer({
    port: 0,
    logLevel: process.env.MOCK_LOG_LEVEL ?? 'silent',
    predictionStartDelayMs: 20,
    predictionRunDelayMs: 50,
  });
  project.provide('mockBaseUrl', mock.url);
  process.env.CONTRACT_MOCK_URL = mock.url; // for the conformance reporter, in this process
}

export async function teardown(): Promise<void> {
  await mock?.close();
}
