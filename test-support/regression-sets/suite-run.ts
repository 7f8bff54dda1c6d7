import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { seedOrganizations } from './regression.js';
import { REPO_ROOT } from './launch-mock.js';

/** One run of the contract suite (`npm run contract`) against a base URL, as a CI job would run it. */

export interface SuiteRun {
  /** 0: every clause passed; 1: a clause failed; anything else: the run itself broke. */
  exitCode: number;
  failedClauses: string[];
  durationMs: number;
}

/** The suite's keys: the seed's first organization, a second one for isolation, the tiny plan for caps. */
function keyEnvironment(): Record<string, string> {
  const [main, other, tiny] = seedOrganizations();
  return {
    CONTRACT_API_KEY: main.key,
    CONTRACT_OTHER_ORG_API_KEY: other.key,
    CONTRACT_TINY_API_KEY: tiny.key,
  };
}

const RUN_TIMEOUT_MS = 10 * 60_000;

export async function runSuite(baseUrl: string, reportDir: string): Promise<SuiteRun> {
  mkdirSync(reportDir, { recursive: true });
  const started = Date.now();
  const log = createWriteStream(path.join(reportDir, 'suite.log'));
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'contract-tests/cli.ts',
      '--base-url',
      baseUrl,
      '--profile',
      'mock',
      '--report-dir',
      reportDir,
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...keyEnvironment(), FORCE_COLOR: '0', CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), RUN_TIMEOUT_MS);
  const exitCode = await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  clearTimeout(timer);
  return { exitCode, failedClauses: failedClauses(reportDir), durationMs: Date.now() - started };
}

/** The clauses the report says failed (or were blocked by a failure). */
function failedClauses(reportDir: string): string[] {
  const file = path.join(reportDir, 'conformance.json');
  if (!existsSync(file)) return [];
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    clauses: Array<{ id: string; outcome: string }>;
  };
  return report.clauses
    .filter((clause) => clause.outcome === 'fail' || clause.outcome === 'blocked')
    .map((clause) => clause.id);
}
