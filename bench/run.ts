/**
 * `npm run bench [-- --only http,uploads] [-- --quick] [-- --profile]`
 *
 * Runs the chosen sections, each against a fresh mock in a child process (bench/support/mock-child.ts),
 * prints progress, writes every number to reports/bench.json and one table to docs/benchmarks.md between
 * the bench markers. Every figure sits beside a peer measured in the same run: the machine is shared
 * and noisy, so only ratios compare across runs. Nothing here is a test assertion.
 *
 * --quick     smaller sizes and shorter runs, for a smoke run; writes reports/bench-quick.json and
 *             leaves docs/benchmarks.md alone.
 * --profile   runs the mock with --cpu-prof (profiles in reports/profiles/<section>/), summarizes
 *             where its time went, writes reports/bench-profile.json; docs/benchmarks.md is left alone
 *             because profiling slows the mock.
 * --render    runs nothing: rewrites the docs/benchmarks.md table and the README's figures from
 *             reports/bench.json (the README's figures from the page's own table where there is none).
 * --only a,b  sections: http, uploads, exports, load, limits, hostile, durability, segmentation, start,
 *             sandbox, sandbox-cost. The table keeps the rows of sections not run this time: of each, the newer of
 *             the previous reports/bench.json and what docs/benchmarks.md shows (read back from its
 *             table, so a fresh checkout keeps the committed figures); a section never run is said
 *             to be not measured.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { commandLine, usageError } from '../test-support/command-line.js';
import { runDurabilityBench } from './sections/durability.js';
import { runExportBench } from './sections/exports.js';
import { runHostileBench } from './sections/hostile.js';
import { runHttpBench } from './sections/http.js';
import { runLimitsBench } from './sections/limits.js';
import { runLoadBench } from './sections/load.js';
import { runSandboxBench } from './sections/sandbox.js';
import { runSandboxCostBench } from './sections/sandbox-cost.js';
import { runStartBench } from './sections/start.js';
import { runUploadBench } from './sections/uploads.js';
import { mergeSections, parseCommittedSections } from './support/committed-table.js';
import { repoRoot, startTsChild, type Child } from './support/processes.js';
import { lingering } from './support/lingering.js';
import { summarizeProfiles } from './support/profile-summary.js';
import { renderReadmeSection, writeReadmeSection } from './support/readme.js';
import { renderReadmeFigures, writeReadmeFigures } from './support/readme-figures.js';
import { segmentationRows, type SegmentationOwnerResult } from './support/segmentation-rows.js';
import type { BenchContext, BenchReport, Row, SectionRecord, SectionResult } from './support/report.js';

const BENCHMARKS_MD = path.join(repoRoot, 'docs', 'benchmarks.md');
const README_MD = path.join(repoRoot, 'README.md');

/** The sections docs/benchmarks.md shows now, read back from its table. */
function committedSections(): BenchReport['sections'] {
  return existsSync(BENCHMARKS_MD) ? parseCommittedSections(readFileSync(BENCHMARKS_MD, 'utf8')) : {};
}

type MockSection = (ctx: BenchContext, mock: Child) => Promise<SectionResult>;

const MOCK_SECTIONS: Record<string, MockSection> = {
  http: runHttpBench,
  uploads: runUploadBench,
  exports: runExportBench,
  load: runLoadBench,
  limits: runLimitsBench,
  hostile: runHostileBench,
  durability: runDurabilityBench,
};
/** Sections that start their own processes instead of one mock child. */
const OWN_PROCESS_SECTIONS: Record<string, (ctx: BenchContext) => Promise<SectionResult>> = {
  start: runStartBench,
  // 1 instance on SQLite, 1-3 on PostgreSQL, each behind nginx, a throwaway PostgreSQL under them
  sandbox: runSandboxBench,
  // CPU per request over every process, 3 instances on PostgreSQL against 1 on SQLite; WAL of reads
  'sandbox-cost': runSandboxCostBench,
};
const ALL = [...Object.keys(MOCK_SECTIONS), 'segmentation', ...Object.keys(OWN_PROCESS_SECTIONS)];

const USAGE = `usage: npm run bench -- [--only SECTION,...] [--quick] [--profile] [--render]

  --only a,b   the sections to run (default: all): ${ALL.join(', ')};
               the table keeps the rows of the others
  --quick      smaller sizes and shorter runs, a smoke run: reports/bench-quick.json, the page untouched
  --profile    the mock under --cpu-prof (reports/profiles/<section>/), summarized; the page untouched
  --render     runs nothing: rewrites docs/benchmarks.md's table and the README's figures from
               reports/bench.json
  --help, -h   this text`;

const TOOL = 'bench';

function readOptions(argv: string[]): { only: string[]; quick: boolean; profile: boolean; render: boolean } {
  const { values } = commandLine(
    TOOL,
    USAGE,
    {
      options: {
        only: { type: 'string' },
        quick: { type: 'boolean', default: false },
        profile: { type: 'boolean', default: false },
        render: { type: 'boolean', default: false },
      },
    },
    argv,
  );
  const only =
    values.only === undefined
      ? ALL
      : values.only
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  // No section at all would measure nothing and still rewrite the page.
  if (!only.length) usageError(TOOL, `--only needs at least one section: ${ALL.join(', ')}`);
  const unknown = only.filter((s) => !ALL.includes(s));
  if (unknown.length) usageError(TOOL, `unknown section(s) ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
  return { only, quick: values.quick, profile: values.profile, render: values.render };
}

async function runSegmentationOwnerBench(log: (m: string) => void): Promise<SectionResult | string> {
  const file = path.join(repoRoot, 'bench', 'segmentation', 'run.ts');
  if (!existsSync(file)) {
    log('segmentation: bench/segmentation/run.ts does not exist yet; skipped');
    return 'bench/segmentation/run.ts does not exist';
  }
  const mod = (await import(pathToFileURL(file).href)) as { runSegmentationBench?: () => Promise<object> };
  if (typeof mod.runSegmentationBench !== 'function') {
    log('segmentation: bench/segmentation/run.ts exports no runSegmentationBench(); skipped');
    return 'bench/segmentation/run.ts exports no runSegmentationBench()';
  }
  const result = (await mod.runSegmentationBench()) as { rows?: unknown };
  const rows: Row[] =
    Array.isArray(result.rows) && result.rows.every((r) => r && typeof r === 'object' && 'metric' in r)
      ? (result.rows as Row[])
      : segmentationRows(result as SegmentationOwnerResult);
  return { rows, data: result as Record<string, unknown> };
}

async function main(): Promise<void> {
  const args = readOptions(process.argv.slice(2));
  if (args.render) {
    const json = path.join(repoRoot, 'reports', 'bench.json');
    if (!existsSync(json)) {
      // A checkout has the page, not the run's JSON (reports/ is not tracked): the README's
      // figures are made again from the page's table, which the page itself already shows.
      await writeReadmeFigures(README_MD, renderReadmeFigures(committedSections()));
      console.log("the README's figures rewritten from docs/benchmarks.md (no reports/bench.json here)");
      return;
    }
    const saved = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    saved.sections = mergeSections(committedSections(), saved.sections);
    await writeReadmeSection(BENCHMARKS_MD, renderReadmeSection(saved));
    await writeReadmeFigures(README_MD, renderReadmeFigures(saved.sections));
    console.log("docs/benchmarks.md table and the README's figures rewritten from reports/bench.json");
    return;
  }
  const started = Date.now();
  const log = (m: string) =>
    console.log(`[bench +${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`);
  const tmpDir = await mkdtemp(path.join(os.tmpdir(), 'cellseg-bench-'));
  // A section that stops on Ctrl-C exits from its signal handler, past the finally below.
  process.once('exit', () => rmSync(tmpDir, { recursive: true, force: true }));
  const ctx: BenchContext = { quick: args.quick, profile: args.profile, tmpDir, log };
  const reportsDir = path.join(repoRoot, 'reports');
  await mkdir(reportsDir, { recursive: true });
  // Quick and profiled runs keep their own files, so they never overwrite the numbers behind docs/benchmarks.md.
  const jsonPath = path.join(
    reportsDir,
    args.profile ? 'bench-profile.json' : args.quick ? 'bench-quick.json' : 'bench.json',
  );

  let previous: BenchReport | undefined;
  try {
    previous = JSON.parse(readFileSync(jsonPath, 'utf8')) as BenchReport;
    if (previous.quick !== args.quick) previous = undefined;
  } catch {
    previous = undefined;
  }
  const report: BenchReport = {
    quick: args.quick,
    machine: {
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? '',
      memoryGB: Math.round(os.totalmem() / 1024 ** 3),
      loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
    },
    // A partial run keeps every section it does not measure: the newer of the local record and the
    // one docs/benchmarks.md shows (reports/ is not tracked, so a fresh checkout has only the latter).
    sections: mergeSections(args.quick || args.profile ? undefined : committedSections(), previous?.sections),
  };
  log(
    `sections ${args.only.join(', ')}${args.quick ? ' (quick)' : ''}${args.profile ? ' (profiling the mock)' : ''}; ` +
      `${report.machine.cpus} CPUs, load average ${report.machine.loadavg.join(' ')}`,
  );

  try {
    for (const name of ALL.filter((s) => args.only.includes(s))) {
      const t = Date.now();
      log(`== ${name}`);
      const record: SectionRecord = { measuredAt: new Date().toISOString(), seconds: 0, rows: [], data: {} };
      try {
        if (name === 'segmentation') {
          const result = await runSegmentationOwnerBench(log);
          if (typeof result === 'string') record.skipped = result;
          else Object.assign(record, result);
        } else if (OWN_PROCESS_SECTIONS[name]) {
          Object.assign(record, await OWN_PROCESS_SECTIONS[name](ctx));
        } else {
          const profileDir = path.join(reportsDir, 'profiles', name);
          if (args.profile) {
            await rm(profileDir, { recursive: true, force: true });
            await mkdir(profileDir, { recursive: true });
          }
          const mock = await startTsChild('bench/support/mock-child.ts', [], {
            nodeArgs: args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
          });
          try {
            Object.assign(record, await MOCK_SECTIONS[name](ctx, mock));
          } finally {
            await mock.stop();
          }
          if (args.profile) {
            record.profile = summarizeProfiles(profileDir);
            for (const p of record.profile) {
              log(`profile ${name}/${p.file}: ${p.durationMs.toFixed(0)} ms, busy ${p.busyPercent}%`);
              for (const m of p.byModule.slice(0, 8))
                log(`   module ${m.percent.toFixed(1).padStart(5)}%  ${m.name}`);
              for (const f of p.topFunctions.slice(0, 10))
                log(`   self   ${f.percent.toFixed(1).padStart(5)}%  ${f.name}`);
            }
          }
        }
      } catch (err) {
        // fetch's own message ("fetch failed") says nothing: its cause (ECONNRESET, ...) goes first
        const cause = (err as Error).cause as { code?: string; message?: string } | undefined;
        const because = cause ? ` (${cause.code ?? cause.message})` : '';
        record.error = `${(err as Error).message}${because}\n${(err as Error).stack ?? String(err)}`;
        log(`${name} FAILED: ${(err as Error).message}${because}`);
      }
      record.seconds = (Date.now() - t) / 1000;
      report.sections[name] = record;
      for (const r of record.rows) {
        log(
          `${r.ok === false ? 'MISS' : r.ok ? ' ok ' : '    '} ${r.metric}: ${r.ours} | ${r.peer} | ${r.ratio}`,
        );
      }
    }
  } finally {
    await rm(tmpDir, { recursive: true, force: true });
  }

  await writeFile(jsonPath, JSON.stringify(report, null, 2) + '\n');
  log(`wrote ${path.relative(repoRoot, jsonPath)}`);
  if (args.quick || args.profile) {
    log('docs/benchmarks.md left alone (quick or profiled run)');
    console.log(renderReadmeSection(report));
  } else {
    await writeReadmeSection(BENCHMARKS_MD, renderReadmeSection(report));
    await writeReadmeFigures(README_MD, renderReadmeFigures(report.sections));
    log('wrote the table to docs/benchmarks.md and the figures to the README');
  }
  if (Object.values(report.sections).some((s) => s.error)) process.exitCode = 1;
}

await main();
// Everything a section opened is closed by now; what is left would keep the process alive with
// nothing more to do (a --quick run once hung here): say what it is and exit.
const left = lingering(process.getActiveResourcesInfo());
if (left.length) {
  console.warn(`bench: still open after the last section: ${left.join(', ')}; exiting`);
  process.exit();
}
