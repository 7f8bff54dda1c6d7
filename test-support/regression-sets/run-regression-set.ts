import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import prettier from 'prettier';
import { commandLine, usageError, wholeNumber } from '../command-line.js';
import { launchMock, REPO_ROOT, type LaunchedMock } from './launch-mock.js';
import type { Regression } from './regression.js';
import { startRegressionProxy } from './regression-proxy.js';
import { renderResults, type PartialMeasure, type RegressionResult, type SetResult } from './results.js';
import { REGRESSION_SETS } from './sets.js';
import { runSuite } from './suite-run.js';

/**
 * `npm run regressions -- --set a [--only ID[,ID...]]`: measures the contract suite on a set of
 * regressions. Starts healthy mocks (one per lane, at most two lanes: the machine is shared), runs
 * the suite through a no-op proxy first (it must pass, or no figure means anything), then once per
 * regression through a proxy that carries it: caught when the suite fails, missed when it passes.
 * Each mock is reset to its seed before every run. A whole set writes its results to its page
 * (docs/regression-sets.md for set A, docs/regression-sets-b.md for set B, docs/regression-sets-c.md
 * for set C, docs/regression-sets-d.md for set D, docs/regression-sets-e.md for set E,
 * docs/regression-sets-f.md for set F, docs/regression-sets-g.md for set G, docs/regression-sets-h.md
 * for set H, docs/regression-sets-i.md for set I, docs/regression-sets-j.md for set J: see sets.ts) and
 * test-support/regression-sets/set-<name>-results.json (`--label` says what was measured); a subset
 * with `--record LABEL` is kept in set-<name>-measures.json and shown on the same page beside the
 * whole set's run.
 */

const LANES = 2;

const USAGE = `usage: npm run regressions -- [--set NAME] [--only ID[,ID...]] [--lanes N] [--label TEXT] [--record LABEL]

Measures the contract suite on a set of regressions: the suite runs once through a no-op proxy (it
must pass), then once per regression through a proxy that carries it (caught: the suite failed;
missed: it passed).

  --set NAME        the set to measure: ${Object.keys(REGRESSION_SETS).join(', ')} (default a)
  --only ID[,ID]    only these regressions of the set (the option may be given again); the set's
                    committed results are left as they are unless --record is given
  --lanes N         regressions measured at a time, each lane with its own mock (1 or 2, default ${LANES})
  --label TEXT      what a whole-set run measured, kept with its results on the set's page
  --record LABEL    with --only: keeps the subset's outcomes in set-<name>-measures.json under
                    LABEL and shows them on the set's page beside the whole set's run
  --help, -h        this text`;

const TOOL = 'regressions';
const { values } = commandLine(TOOL, USAGE, {
  options: {
    set: { type: 'string', default: 'a' },
    only: { type: 'string', multiple: true },
    lanes: { type: 'string', default: String(LANES) },
    label: { type: 'string' },
    record: { type: 'string' },
  },
});
const setName = values.set;
const registered = REGRESSION_SETS[setName];
if (!registered)
  usageError(TOOL, `unknown set '${setName}': known sets are ${Object.keys(REGRESSION_SETS).join(', ')}`);
const set = registered.regressions;
const only = (values.only ?? []).flatMap((ids) => ids.split(','));
const unknown = only.filter((id) => !set.some((regression) => regression.id === id));
if (unknown.length) usageError(TOOL, `unknown regression id(s) in set ${setName}: ${unknown.join(', ')}`);
const requestedLanes = wholeNumber(TOOL, 'lanes', values.lanes, 1);
const chosen = only.length ? set.filter((regression) => only.includes(regression.id)) : set;
const lanes = Math.max(1, Math.min(LANES, requestedLanes, chosen.length));
const reportRoot = path.join(REPO_ROOT, 'reports', 'regressions', `set-${setName}`);
rmSync(reportRoot, { recursive: true, force: true });

/** The suite through `regression`'s proxy (none: the no-op proxy) against `mock`, reset first. */
async function measure(mock: LaunchedMock, regression: Regression | undefined, name: string) {
  await mock.reset();
  const proxy = await startRegressionProxy(mock.url, regression);
  try {
    const run = await runSuite(proxy.url, path.join(reportRoot, name));
    if (proxy.hookErrors.length)
      writeFileSync(path.join(reportRoot, name, 'hook-errors.txt'), proxy.hookErrors.join('\n\n') + '\n');
    return { ...run, hookErrors: proxy.hookErrors.length };
  } finally {
    await proxy.close();
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(0)} s`;
}

const started = Date.now();
const mocks = await Promise.all(Array.from({ length: lanes }, () => launchMock()));
try {
  console.log(
    `set ${setName}: ${chosen.length} regression(s), ${lanes} at a time, mocks at ${mocks.map((m) => m.url).join(', ')}`,
  );
  const sanity = await Promise.all(mocks.map((mock, lane) => measure(mock, undefined, `no-op-${lane + 1}`)));
  for (const [lane, run] of sanity.entries()) {
    console.log(`no-op proxy, lane ${lane + 1}: exit ${run.exitCode} in ${seconds(run.durationMs)}`);
    if (run.exitCode !== 0) {
      console.error(
        `the suite fails through the no-op proxy (clauses ${run.failedClauses.join(', ') || 'none named'}): see ${reportRoot}/no-op-${lane + 1}/suite.log; no regression can be measured`,
      );
      process.exit(1);
    }
  }

  const results: RegressionResult[] = [];
  let next = 0;
  await Promise.all(
    mocks.map(async (mock) => {
      while (next < chosen.length) {
        const regression = chosen[next++];
        const run = await measure(mock, regression, regression.id);
        // A hook that threw made the proxy answer 502: the suite failed on that, not on the bug.
        const broken = run.hookErrors > 0 || (run.exitCode !== 0 && run.exitCode !== 1);
        const outcome = broken ? 'error' : run.exitCode === 0 ? 'missed' : 'caught';
        results.push({
          ...describe(regression),
          outcome,
          failedClauses: run.failedClauses,
          durationMs: run.durationMs,
        });
        const clauses = run.failedClauses.length ? ` (${run.failedClauses.join(', ')})` : '';
        const errors = run.hookErrors
          ? `; ${run.hookErrors} hook error(s), see ${regression.id}/hook-errors.txt`
          : '';
        console.log(
          `[${results.length}/${chosen.length}] ${regression.id}: ${outcome}${clauses} in ${seconds(run.durationMs)}${errors}`,
        );
      }
    }),
  );
  results.sort((a, b) => chosen.findIndex((r) => r.id === a.id) - chosen.findIndex((r) => r.id === b.id));

  const result: SetResult = {
    set: setName,
    ...(values.label ? { label: values.label } : {}),
    date: new Date().toISOString(),
    durationMs: Date.now() - started,
    lanes,
    noOpDurationMs: Math.max(...sanity.map((run) => run.durationMs)),
    results,
  };
  const { table } = renderResults(result, registered);
  console.log(`\n${table}`);
  mkdirSync(reportRoot, { recursive: true });
  writeFileSync(path.join(reportRoot, 'results.json'), JSON.stringify(result, null, 2) + '\n');
  const wholeFile = path.join(REPO_ROOT, registered.resultsFile);
  const measuresFile = path.join(REPO_ROOT, registered.measuresFile);
  const page = path.join(REPO_ROOT, registered.page);
  const measures: PartialMeasure[] = existsSync(measuresFile)
    ? (JSON.parse(readFileSync(measuresFile, 'utf8')) as PartialMeasure[])
    : [];
  if (only.length === 0) {
    await writeFormatted(wholeFile, JSON.stringify(result));
    await writeFormatted(page, renderResults(result, registered, measures).markdown);
    console.log(`results: ${registered.page}, ${registered.resultsFile}`);
  } else if (values.record && existsSync(wholeFile)) {
    measures.push({
      label: values.record,
      date: result.date,
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      }).trim(),
      results: results.map(({ id, outcome, failedClauses }) => ({ id, outcome, failedClauses })),
    });
    await writeFormatted(measuresFile, JSON.stringify(measures));
    const whole = JSON.parse(readFileSync(wholeFile, 'utf8')) as SetResult;
    await writeFormatted(page, renderResults(whole, registered, measures).markdown);
    console.log(`recorded as "${values.record}": ${registered.page}, ${registered.measuresFile}`);
  } else {
    console.log(`results (a subset, so the committed ones are left as they are): ${reportRoot}/results.json`);
  }
  process.exitCode = results.some((r) => r.outcome === 'error') ? 1 : 0;
} finally {
  await Promise.all(mocks.map((mock) => mock.stop()));
}

function describe(regression: Regression) {
  const { id, area, description, violates, statedIn } = regression;
  return { id, area, description, violates, statedIn };
}

/** Written as the repository's formatter would, so `npm run lint` stays clean on generated files. */
async function writeFormatted(file: string, text: string) {
  const options = await prettier.resolveConfig(file);
  writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
}
