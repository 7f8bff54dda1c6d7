import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createVitest, type Reporter, type TestModule, type TestSpecification } from 'vitest/node';
import { checkResults } from '../contract-tests/report/check-results.js';
import { buildReport } from '../contract-tests/report/conformance-model.js';
import { OpenApiContract } from '../contract-tests/harness/openapi-contract.js';
import vitestConfig from '../vitest.config.js';
import { REPO_ROOT } from './launched-mock.js';
import { SABOTAGES, type Sabotage } from './sabotage-catalogue.js';
import { startSabotageProxy } from './sabotage-proxy.js';

/** What the contract suite said about one broken build: the clauses it failed, and why. */
export interface SabotageVerdict {
  failedClauses: string[];
  /** The errors of the checks behind the failed clauses, one per line. */
  errors: string;
}

interface Keys {
  main: string;
  other: string;
  tiny: string;
}

/** The cases' checks fail on purpose: their output is judged below, not printed. */
export const silent: Reporter = {};

/** The contract project's own settings (concurrency, isolation, timeouts), so a case runs its checks as the suite does. */
/** The contract project's settings for a run of cases; `gateDir` is the run's gate (check-gate.ts). */
export function contractSettings(gateDir: string) {
  const projects = (vitestConfig.test?.projects ?? []) as Array<{ test?: Record<string, unknown> }>;
  const contract = projects.find((p) => p.test?.name === 'contract')?.test;
  if (!contract) throw new Error('vitest.config.ts has no contract project');
  // The cases run against their own proxies: no mock of the suite's setup, no group order.
  const { globalSetup: _setup, include: _include, name: _name, sequence, ...rest } = contract;
  mkdirSync(gateDir, { recursive: true });
  return {
    ...rest,
    sequence: { ...(sequence as object), groupOrder: undefined },
    // Every case's checks share the one mock: a check that runs alone waits for all of them.
    provide: { checkGateDir: gateDir },
  };
}

/** Settings of a case's run (a seed and a run count for the stateful exploration). */
function caseEnv(name: Sabotage): Record<string, string> {
  const sabotage = SABOTAGES[name];
  return 'env' in sabotage ? sabotage.env : {};
}

/**
 * Only the checks that name a clause the case breaks can fail it (a clause's outcome is that of
 * the checks naming it), so a case runs those alone, narrowed further by the case's `only`.
 */
export function namePattern(breaks: readonly string[], only: string | undefined): RegExp {
  const names = `(?=.*\\[[^\\]]*(?<![\\w-])(?:${breaks.join('|')})(?![\\w-])[^\\]]*\\])`;
  return new RegExp(`^${names}${only ? `(?=.*(?:${only}))` : ''}`);
}

/**
 * Each case's checks, as a test file of its own: it points the environment at the case's proxy
 * (when collected, for what a check module reads as it loads, and before its tests run, since a
 * worker may collect several files before it runs them), then loads the check module under a
 * query of the case's name, so that the same checks load again for each case in one worker.
 */
export function caseFile(
  dir: string,
  name: string,
  file: string,
  env: Record<string, string>,
  unset: string[],
) {
  const caseDir = path.join(dir, name);
  mkdirSync(caseDir, { recursive: true });
  const wrapper = path.join(caseDir, file);
  const checks = path.relative(caseDir, path.join(REPO_ROOT, 'contract-tests', 'checks', file));
  writeFileSync(
    wrapper,
    [
      "import { beforeAll } from 'vitest';",
      `const env: Record<string, string> = ${JSON.stringify(env)};`,
      `const unset: string[] = ${JSON.stringify(unset)};`,
      'function enterCase(): void {',
      '  for (const name of unset) delete process.env[name];',
      '  Object.assign(process.env, env);',
      '}',
      'enterCase();',
      'beforeAll(enterCase);',
      `await import(${JSON.stringify(`${checks.split(path.sep).join('/')}?sabotage=${name}`)});`,
      '',
    ].join('\n'),
  );
  return wrapper;
}

/**
 * Runs the contract checks of every sabotage case against its own broken build (a proxy in front
 * of the healthy mock at `mockUrl`), all in one vitest run and one project: each case's checks are
 * files of their own (caseFile), so three workers serve every case, instead of a worker (and a
 * project) per case that each loaded the harness and compiled the document's validators again.
 */
export async function runSabotageCases(
  mockUrl: string,
  keys: Keys,
  cases: Sabotage[] = Object.keys(SABOTAGES) as Sabotage[],
): Promise<Map<Sabotage, SabotageVerdict>> {
  const proxies = await Promise.all(cases.map((name) => startSabotageProxy(mockUrl, name, keys)));
  const reportRoot = mkdtempSync(path.join(os.tmpdir(), 'sabotage-'));
  // inside the checkout, where vitest transforms and runs files as its own
  const cacheDir = path.join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const caseRoot = mkdtempSync(path.join(cacheDir, 'sabotage-cases-'));
  const envs = cases.map((name, i) => ({
    CONTRACT_BASE_URL: proxies[i].url,
    CONTRACT_REPORT_DIR: path.join(reportRoot, name),
    ...caseEnv(name),
  }));
  const caseKeys = [...new Set(envs.flatMap((env) => Object.keys(env)))];
  const vitest = await createVitest(
    'test',
    { config: false, root: REPO_ROOT, watch: false, reporters: [silent], maxWorkers: 3 },
    {
      test: {
        // the checks' modules as transformed by earlier runs, instead of once per run
        experimental: { fsModuleCache: true, fsModuleCachePath: 'node_modules/.cache/vitest-modules' },
        projects: [
          {
            test: {
              ...contractSettings(path.join(reportRoot, 'gate')),
              name: 'sabotage',
              root: REPO_ROOT,
              include: [],
              env: {
                CONTRACT_PROFILE: 'mock',
                CONTRACT_API_KEY: keys.main,
                CONTRACT_OTHER_ORG_API_KEY: keys.other,
                CONTRACT_TINY_API_KEY: keys.tiny,
                CONTRACT_POLL_TIMEOUT_MS: '5000',
              },
            },
          },
        ],
      },
    },
  );
  try {
    const project = vitest.getProjectByName('sabotage');
    const files = new Map<string, Sabotage>();
    const specifications: TestSpecification[] = cases.flatMap((name, i) => {
      const sabotage = SABOTAGES[name];
      const only = 'only' in sabotage ? sabotage.only : undefined;
      const unset = caseKeys.filter((key) => !(key in envs[i]));
      return sabotage.files.map((f) => {
        const file = caseFile(caseRoot, name, f, envs[i], unset);
        files.set(file, name);
        return project.createSpecification(file, { testNamePattern: namePattern(sabotage.breaks, only) });
      });
    });
    const exitCode = process.exitCode;
    const { testModules } = await vitest.runTestSpecifications(specifications);
    process.exitCode = exitCode; // the cases' failures are expected, not this process's
    const contract = new OpenApiContract();
    const verdicts = new Map<Sabotage, SabotageVerdict>();
    for (const name of cases) {
      const modules: TestModule[] = testModules.filter((m) => files.get(m.moduleId) === name);
      const report = buildReport(
        checkResults(modules),
        contract,
        { baseUrl: '', profile: 'mock', capabilities: [] },
        { startedAt: '', finishedAt: '' },
      );
      const failed = report.clauses.filter((c) => c.outcome === 'fail');
      const moduleErrors = modules.flatMap((m) => m.errors().map((e) => e.message));
      verdicts.set(name, {
        failedClauses: failed.map((c) => c.id),
        errors: [...failed.flatMap((c) => c.checks.map((k) => k.error ?? '')), ...moduleErrors].join('\n'),
      });
    }
    return verdicts;
  } finally {
    await vitest.close();
    await Promise.all(proxies.map((p) => p.close()));
    rmSync(reportRoot, { recursive: true, force: true });
    rmSync(caseRoot, { recursive: true, force: true });
  }
}
