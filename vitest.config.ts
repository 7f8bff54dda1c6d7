import os from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * `npm test` (scripts/test-all.ts) runs the contract project's stateful exploration longer than
 * `npm run contract` does: a longer run reaches the states several commands build up (a cap reached
 * by a second key, an image failed and then predicted), for about 7 s more on the mock. Read once
 * and taken out of the environment, so that no process a test starts (the sandbox's own contract
 * runs, several seeds at once) inherits it.
 */
const deepExploration = process.env.CELLSEG_DEEP_EXPLORATION === '1';
delete process.env.CELLSEG_DEEP_EXPLORATION;
const explorationEnv: Record<string, string> = deepExploration
  ? {
      CONTRACT_STATEFUL_RUNS: process.env.CONTRACT_STATEFUL_RUNS ?? '100',
      CONTRACT_STATEFUL_STEPS: process.env.CONTRACT_STATEFUL_STEPS ?? '40',
    }
  : {};

export default defineConfig({
  test: {
    // Transformed modules kept on disk between runs (beside the static checks' caches): a second
    // run in a checkout transforms only what changed, 17 s of CPU less over the unit project.
    experimental: { fsModuleCache: true, fsModuleCachePath: 'node_modules/.cache/vitest-modules' },
    reporters: [
      'default',
      './contract-tests/report/conformance-reporter.ts',
      // With the contract reports, under --report-dir (CONTRACT_REPORT_DIR) when one is given.
      ['junit', { outputFile: path.join(process.env.CONTRACT_REPORT_DIR || 'reports', 'junit.xml') }],
    ],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'mock-server/**/*.test.ts',
            'fixtures/**/*.test.ts',
            'openapi/**/*.test.ts',
            'contract-tests/**/*.test.ts',
            'scripts/**/*.test.ts',
            'test-support/**/*.test.ts',
            'bin/**/*.test.ts',
            'sandbox/**/*.test.ts',
            'bench/**/*.test.ts',
          ],
          exclude: [
            ...configDefaults.exclude,
            'sandbox/sandbox.test.ts',
            'sandbox/sandbox-s3.test.ts',
            'sandbox/cli.test.ts',
            'sandbox/prometheus-scrape.test.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
          // A worker keeps its loaded modules (the mock's, Ajv, sharp) from one file to the next
          // instead of importing them again for each of a hundred files: about 30 s of CPU less
          // over a run. Each file starts and closes its own mock, so none leans on another's state.
          isolate: false,
          // Vitest's default is one worker less than the cores: one file at a time on two cores.
          // Most files here wait on what they start (a mock, its child processes, a browser, a
          // JVM), so three at a time keep the cores busy instead of idle.
          maxWorkers: Math.max(3, os.availableParallelism() - 1),
        },
      },
      {
        test: {
          name: 'contract',
          include: ['contract-tests/checks/**/*.check.ts'],
          env: explorationEnv,
          globalSetup: ['test-support/contract-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
          // Checks are independent (each its own resources, or its own throw-away organization):
          // files run in parallel, one per worker, and share their workers' loaded modules (the
          // document's validators are compiled once per worker, not once per file). The checks of
          // one file run one after another: `sequence.concurrent` does not reach a project's tests
          // (vitest 4: three 1 s tests of one file took 3 s with it, 1 s as test.concurrent).
          isolate: false,
          // A project of its own maxWorkers runs as its own group, after the unit tests.
          sequence: { groupOrder: 1 },
          maxConcurrency: 8,
          // Three files at a time keep two cores busy; a fourth worker holds the file whose check
          // PUTs a part seconds after its plan (part-url-life.check.ts), idle while it waits, so
          // that wait takes no worker from the others (the run's wall time stays as it was).
          maxWorkers: 4,
        },
      },
      {
        test: {
          // The shared sandbox end to end: PostgreSQL, three mock instances and nginx, the contract
          // suite through it. It runs alone, after the others: it starts five processes of its own.
          name: 'sandbox',
          include: [
            'sandbox/sandbox.test.ts',
            'sandbox/sandbox-s3.test.ts',
            'sandbox/cli.test.ts',
            'sandbox/prometheus-scrape.test.ts',
          ],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          pool: 'forks',
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
