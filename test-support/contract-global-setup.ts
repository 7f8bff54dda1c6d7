import type { TestProject } from 'vitest/node';
import { keyProblem } from '../contract-tests/harness/preflight.js';
import { startMockServer, type RunningMock } from '../mock-server/server.js';

/**
 * Starts the mock in this process on an ephemeral port for the contract suite, unless a target is
 * given with CONTRACT_BASE_URL. It lives outside contract-tests/ because the suite itself never
 * imports the mock: it only receives a base URL.
 */
let mock: RunningMock | undefined;

export async function setup(project: TestProject): Promise<void> {
  const baseUrl = process.env.CONTRACT_BASE_URL?.replace(/\/+$/, '');
  if (baseUrl) {
    // A key that is missing or refused would fail every check: stop here, with the reason alone.
    const problem = await keyProblem(baseUrl, {
      main: process.env.CONTRACT_API_KEY,
      other: process.env.CONTRACT_OTHER_ORG_API_KEY,
      tiny: process.env.CONTRACT_TINY_API_KEY,
    });
    if (problem) {
      console.error(`error: ${problem}`);
      process.exit(2);
    }
    project.provide('mockBaseUrl', '');
    return;
  }
  mock = await startMockServer({
    port: 0,
    logLevel: process.env.MOCK_LOG_LEVEL ?? 'silent',
    // Instant: checks that need a prediction in flight hold it there through the control plane.
    predictionStartDelayMs: 0,
    predictionRunDelayMs: 0,
  });
  project.provide('mockBaseUrl', mock.url);
  process.env.CONTRACT_MOCK_URL = mock.url; // for the conformance reporter, in this process
}

export async function teardown(): Promise<void> {
  await mock?.close();
}
