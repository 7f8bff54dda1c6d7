import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createVitest, type Reporter, type TestModule, type TestSpecification } from 'vitest/node';
import { checkResults } from '../../contract-tests/report/check-results.js';
import { buildReport } from '../../contract-tests/report/conformance-model.js';
import { sharedContract } from '../../contract-tests/harness/openapi-contract.js';
import { REPO_ROOT } from '../launched-mock.js';
import type { SabotageCase } from '../sabotage-catalogue.js';
import { startSabotageProxy } from '../sabotage-proxy.js';
import { caseFile, contractSettings } from '../sabotage-runs.js';

/** One run of some check files against one case of the sabotage proxy. */
export interface CaseRun {
  key: string;
  sabotage: SabotageCase;
  files: readonly string[];
  /** Narrows the run to the checks whose names match (vitest -t). */
  pattern?: RegExp;
  env?: Record<string, string>;
}

/** What the checks said about one case. */
export interface CaseOutcome {
  key: string;
  /** A check failed, or a check file could not run. */
  failed: boolean;
  failedClauses: string[];
  /** The first lines of the failures, for a report. */
  errors: string;
  /** The check files that ran, and how long each took. */
  durations: Record<string, number>;
  /** The `operation status` answers each check received, by the check's full name. */
  calls: Record<string, string[]>;
}

export interface Keys {
  main: string;
  other: string;
  tiny: string;
}

/**
 * A tiny-plan organization of its own for one case run, with the plan of the seed's tiny one. The
 * cap checks fill the tiny organization to its cap and count what it refuses: two cases' runs
 * sharing the seed's would move each other's counts, and a mutant would be killed by the other
 * run's uploads, not by its own edit.
 */
async function ownTinyKey(mockUrl: string, tiny: string, name: string): Promise<string> {
  const seed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'fixtures', 'seed.json'), 'utf8')) as {
    organizations: Array<{ api_keys: string[]; plan: unknown }>;
  };
  const plan = seed.organizations.find((o) => o.api_keys.includes(tiny))?.plan;
  const created = await fetch(`${mockUrl}/__mock/organizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, plan }),
  });
  if (!plan || created.status !== 200) return tiny;
  return ((await created.json()) as { api_keys: string[] }).api_keys[0];
}

/**
 * The seed organizations of `keys` set back to no analyses this month, between two batches (no case
 * runs then). A whole run's cases predict more than the seed plans' months allow (Acme's 2000), and a
 * check blocked by that 402 reads as a kill its mutant did not make, crediting no clause.
 */
async function analysesBackToNone(mockUrl: string, keys: readonly string[]): Promise<void> {
  const seed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'fixtures', 'seed.json'), 'utf8')) as {
    organizations: Array<{ id: string; api_keys: string[] }>;
  };
  for (const org of seed.organizations.filter((o) => o.api_keys.some((k) => keys.includes(k)))) {
    const set = await fetch(`${mockUrl}/__mock/organizations/${org.id}/usage`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ analyses_this_month: 0 }),
    });
    if (set.status !== 200)
      throw new Error(`PUT usage of ${org.id} answered ${set.status}: ${await set.text()}`);
  }
}

/** Cases of one vitest run at a time: their proxies and loaded check modules are let go between batches. */
const BATCH = 48;

function outcomeOf(key: string, modules: TestModule[]): CaseOutcome {
  const report = buildReport(
    checkResults(modules),
    sharedContract(),
    { baseUrl: '', profile: 'mock', capabilities: [] },
    { startedAt: '', finishedAt: '' },
  );
  const failedTests = modules.flatMap((m) =>
    [...m.children.allTests()]
      .filter((t) => t.result().state === 'failed')
      .map((t) => `${t.name}: ${(t.result().errors ?? []).map((e) => e.message).join(' ')}`),
  );
  const moduleErrors = modules.flatMap((m) =>
    m.errors().map((e) => `${path.basename(m.moduleId)}: ${e.message}`),
  );
  const lines = [...failedTests, ...moduleErrors].map((l) => l.split('\n')[0].slice(0, 300));
  // an advisory clause at risk fails in the report, not its test (it never fails a run)
  const failedClauses = report.clauses.filter((c) => c.outcome === 'fail').map((c) => c.id);
  return {
    key,
    failed: lines.length > 0 || failedClauses.length > 0,
    failedClauses,
    errors: lines.slice(0, 5).join('\n'),
    durations: Object.fromEntries(modules.map((m) => [path.basename(m.moduleId), m.diagnostic().duration])),
    calls: Object.fromEntries(
      modules.flatMap((m) =>
        [...m.children.allTests()].map((t) => [
          t.fullName,
          (t.meta().contract?.calls ?? []).map((c) => `${c.operationId} ${c.status}`),
        ]),
      ),
    ),
  };
}

/**
 * Runs each case's check files against the case's own proxy in front of the healthy mock at
 * `mockUrl`, `workers` files at a time, as sabotage-runs.ts runs the sabotage catalogue (each case's
 * files as files of their own in one vitest run); `onOutcome` hears of each case as its last file ends.
 */
export async function runCases(
  mockUrl: string,
  keys: Keys,
  runs: CaseRun[],
  workers: number,
  onOutcome: (outcome: CaseOutcome) => void,
): Promise<Map<string, CaseOutcome>> {
  const outcomes = new Map<string, CaseOutcome>();
  const reportRoot = mkdtempSync(path.join(os.tmpdir(), 'mutation-'));
  const cacheDir = path.join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const caseRoot = mkdtempSync(path.join(cacheDir, 'mutation-cases-'));
  const owner = new Map<string, CaseRun>();
  const pending = new Map<string, TestModule[]>();
  const remaining = new Map<string, number>();
  const listener: Reporter = {
    onTestModuleEnd(module) {
      const run = owner.get(module.moduleId);
      if (!run) return;
      pending.get(run.key)!.push(module);
      const left = remaining.get(run.key)! - 1;
      remaining.set(run.key, left);
      if (left > 0) return;
      const outcome = outcomeOf(run.key, pending.get(run.key)!);
      outcomes.set(run.key, outcome);
      onOutcome(outcome);
    },
  };
  const vitest = await createVitest(
    'test',
    { config: false, root: REPO_ROOT, watch: false, reporters: [listener], maxWorkers: workers },
    {
      test: {
        experimental: { fsModuleCache: true, fsModuleCachePath: 'node_modules/.cache/vitest-modules' },
        projects: [
          {
            test: {
              ...contractSettings(path.join(reportRoot, 'gate')),
              name: 'mutation',
              root: REPO_ROOT,
              include: [],
              maxWorkers: workers,
              env: {
                CONTRACT_PROFILE: 'mock',
                CONTRACT_API_KEY: keys.main,
                CONTRACT_OTHER_ORG_API_KEY: keys.other,
                CONTRACT_TINY_API_KEY: keys.tiny,
                // long enough for a loaded machine: a poll that times out would kill a mutant it did not see
                CONTRACT_POLL_TIMEOUT_MS: '20000',
              },
            },
          },
        ],
      },
    },
  );
  const envKeys = [...new Set(runs.flatMap((r) => Object.keys(r.env ?? {})))];
  try {
    const project = vitest.getProjectByName('mutation');
    for (let start = 0; start < runs.length; start += BATCH) {
      const batch = runs.slice(start, start + BATCH).filter((r) => r.files.length);
      await analysesBackToNone(mockUrl, [keys.main, keys.other]);
      const proxies = await Promise.all(batch.map((r) => startSabotageProxy(mockUrl, r.sabotage, keys)));
      const tinyKeys = await Promise.all(
        batch.map((r) => ownTinyKey(mockUrl, keys.tiny, `mutation ${r.key}`)),
      );
      try {
        const specifications: TestSpecification[] = batch.flatMap((run, i) => {
          const env = {
            CONTRACT_BASE_URL: proxies[i].url,
            CONTRACT_REPORT_DIR: path.join(reportRoot, run.key),
            CONTRACT_TINY_API_KEY: tinyKeys[i],
            ...run.env,
          };
          const unset = envKeys.filter((k) => !(k in env));
          pending.set(run.key, []);
          remaining.set(run.key, run.files.length);
          return run.files.map((f) => {
            const file = caseFile(caseRoot, run.key, f, env, unset);
            owner.set(file, run);
            return project.createSpecification(file, run.pattern ? { testNamePattern: run.pattern } : {});
          });
        });
        const exitCode = process.exitCode;
        const { testModules } = await vitest.runTestSpecifications(specifications);
        process.exitCode = exitCode; // the cases' failures are expected, not this process's
        // a case whose end the listener missed is judged by the run's own account of its modules
        for (const run of batch) {
          if (outcomes.has(run.key)) continue;
          const modules = testModules.filter((m) => owner.get(m.moduleId)?.key === run.key);
          const outcome = modules.length
            ? outcomeOf(run.key, modules)
            : { ...outcomeOf(run.key, []), failed: true, errors: 'the check files did not run' };
          outcomes.set(run.key, outcome);
          onOutcome(outcome);
        }
      } finally {
        await Promise.all(proxies.map((p) => p.close()));
      }
    }
    return outcomes;
  } finally {
    await vitest.close();
    rmSync(reportRoot, { recursive: true, force: true });
    rmSync(caseRoot, { recursive: true, force: true });
  }
}
