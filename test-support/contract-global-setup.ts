import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { keyProblem } from '../contract-tests/harness/preflight.js';
import { launchMock, type LaunchedMock } from './launched-mock.js';

/**
 * Starts the mock for the contract suite on an ephemeral port, unless a target is given with
 * CONTRACT_BASE_URL. It lives outside contract-tests/ because the suite itself never imports the
 * mock: it only receives a base URL.
 *
 * The mock runs as a process of its own, launched as a user launches it (bin/cellseg-mock.js: the
 * build in dist/ when it is current, the sources through tsx when they changed since). Inside the
 * vitest process it shared one thread with vitest's own work, and its decoder children started
 * through tsx; on its own it takes the second core (the suite went from 15.5 s to about 11 s here,
 * docs/contract-suite.md).
 */
let mock: LaunchedMock | undefined;
let gateDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  // The gate that lets a check run alone (contract-tests/harness/check-gate.ts): one per run.
  gateDir = mkdtempSync(path.join(os.tmpdir(), 'contract-gate-'));
  project.provide('checkGateDir', gateDir);
  const baseUrl = process.env.CONTRACT_BASE_URL?.replace(/\/+$/, '');
  if (baseUrl) {
    // A key that is missing or refused would fail every check: stop here, with the reason alone.
    const problem = await keyProblem(baseUrl, {
      main: process.env.CONTRACT_API_KEY,
      other: process.env.CONTRACT_OTHER_ORG_API_KEY,
      tiny: process.env.CONTRACT_TINY_API_KEY,
      second: process.env.CONTRACT_SECOND_API_KEY,
    });
    if (problem) {
      console.error(`error: ${problem}`);
      process.exit(2);
    }
    project.provide('mockBaseUrl', '');
    return;
  }
  mock = launchMock(process.execPath, [
    'bin/cellseg-mock.js',
    '--port',
    '0',
    '--log-level',
    process.env.MOCK_LOG_LEVEL ?? 'silent',
    // Instant: checks that need a prediction in flight hold it there through the control plane.
    '--prediction-start-delay-ms',
    '0',
    '--prediction-run-delay-ms',
    '0',
  ]);
  let url: string;
  try {
    url = await mock.url;
  } catch (err) {
    mock.kill();
    throw err;
  }
  project.provide('mockBaseUrl', url);
  process.env.CONTRACT_MOCK_URL = url; // for the conformance reporter, in this process
}

export async function teardown(): Promise<void> {
  if (gateDir) rmSync(gateDir, { recursive: true, force: true });
  if (!mock) return;
  mock.child.kill('SIGTERM');
  const stopped = await Promise.race([
    mock.exited.then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
  ]);
  if (!stopped) mock.kill();
}
