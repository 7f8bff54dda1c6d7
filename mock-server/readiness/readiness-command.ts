/**
 * `cellseg-mock readiness ...`, from the installed package as from a checkout (the build bundles it
 * with the mock, since a run starts mocks of its own):
 *
 *   readiness --org KEY [--base-url URL] [--format md|html|json]
 *       what the organization's client has met on a running mock (GET /__mock/org/readiness)
 *   readiness run [--cases a,b] [--parallel N] [--case-timeout-ms N] [--out DIR] -- <command...>
 *       the command once on a plain mock, then once per case on a mock armed with it; reports in DIR
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { READINESS_CASES, type CaseId } from '../control/readiness/readiness-cases.js';
import { renderExposure, type ExposureFormat, type ReadinessResource } from './exposure-report.js';
import { judgedNothing, readinessRun, runFailed } from './readiness-run.js';
import { runReportMarkdown, writeRunReport } from './run-report.js';

export const READINESS_USAGE = `Usage: cellseg-mock readiness [run] [options]

  readiness --org KEY [--base-url URL] [--format md|html|json]
      what the organization's client has met on a running mock, and the cases it has not
      (GET /__mock/org/readiness); --base-url defaults to http://127.0.0.1:8000
  readiness run [--cases a,b] [--parallel N] [--case-timeout-ms N] [--out DIR] -- <your test command>
      runs the command on a fresh mock with nothing armed, then once per case its calls can meet,
      each on a fresh mock armed with that case, with CELLSEG_BASE_URL and CELLSEG_API_KEY set;
      reports readiness.{md,html,json} and junit.xml in DIR (default ./readiness-report);
      exit 1 when the baseline or any case failed, 3 when no case applied. Cases: ${READINESS_CASES.map((c) => c.id).join(', ')}
`;

const LOCAL_MOCK = 'http://127.0.0.1:8000';
const FORMATS: readonly ExposureFormat[] = ['md', 'html', 'json'];

/** Runs `readiness ...`; answers the exit code (2 for a command line it cannot use). */
export async function readinessCommand(argv: string[]): Promise<number> {
  try {
    if (argv[0] === 'run') return await run(argv.slice(1));
    return await exposure(argv);
  } catch (err) {
    const code = (err as { code?: string }).code;
    console.error(`cellseg-mock readiness: ${err instanceof Error ? err.message : String(err)}`);
    return code?.startsWith('ERR_PARSE_ARGS') || code === 'USAGE' ? 2 : 1;
  }
}

const usageError = (message: string) => Object.assign(new Error(message), { code: 'USAGE' });

async function exposure(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      'base-url': { type: 'string' },
      format: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(READINESS_USAGE);
    return 0;
  }
  if (positionals.length)
    throw usageError(`unknown command '${positionals[0]}' (readiness takes 'run' or --org KEY)`);
  if (!values.org) throw usageError("--org KEY is required (the organization's API key)");
  const format = (values.format ?? 'md') as ExposureFormat;
  if (!FORMATS.includes(format)) throw usageError(`--format ${format}: expected md, html or json`);
  const base = (values['base-url'] ?? LOCAL_MOCK).replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  let answer: Response;
  try {
    answer = await fetch(`${base}/__mock/org/readiness`, {
      headers: { authorization: `Bearer ${values.org}` },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new Error(
      `no answer from ${base} (${(err as Error).cause ? String((err as Error).cause) : (err as Error).message}): is the mock running there?`,
    );
  }
  if (answer.status === 401)
    throw new Error(`401 Unauthorized from ${base}: no organization has the key given with --org`);
  if (!answer.ok)
    throw new Error(
      `GET ${base}/__mock/org/readiness answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`,
    );
  process.stdout.write(renderExposure((await answer.json()) as ReadinessResource, format));
  return 0;
}

/** The longest time limit a timer keeps: past it Node fires after 1 ms, and every run would end at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

function positiveInteger(name: string, text: string | undefined, fallback: number, most?: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > (most ?? n))
    throw usageError(`${name} ${text}: expected a whole number from 1${most ? ` to ${most}` : ''}`);
  return n;
}

/** The report folder, made before any run: one it cannot write must not cost a whole run first. */
function reportFolder(out: string): string {
  try {
    mkdirSync(path.join(out, 'journals'), { recursive: true });
    accessSync(path.join(out, 'journals'), constants.W_OK);
  } catch (err) {
    throw usageError(`--out ${out}: cannot write the report there (${(err as NodeJS.ErrnoException).code})`);
  }
  return out;
}

async function run(argv: string[]): Promise<number> {
  const split = argv.indexOf('--');
  const own = split >= 0 ? argv.slice(0, split) : argv;
  const command = split >= 0 ? argv.slice(split + 1) : [];
  const { values, positionals } = parseArgs({
    args: own,
    allowPositionals: true,
    options: {
      cases: { type: 'string' },
      parallel: { type: 'string' },
      'case-timeout-ms': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(READINESS_USAGE);
    return 0;
  }
  if (positionals.length) throw usageError(`'${positionals[0]}': the command to run goes after --`);
  // A blank command would "pass" every run while testing nothing.
  if (!command[0]?.trim())
    throw usageError('no command to run: readiness run [options] -- <your test command>');
  const known = new Set<string>(READINESS_CASES.map((c) => c.id));
  const cases = values.cases
    ?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const unknown = cases?.filter((c) => !known.has(c));
  if (unknown?.length || cases?.length === 0)
    throw usageError(
      `${unknown?.length ? `unknown case ${unknown.join(', ')}` : `--cases '${values.cases}' names no case`} (known: ${[...known].join(', ')})`,
    );
  const parallel = positiveInteger('--parallel', values.parallel, 4);
  const caseTimeoutMs = positiveInteger(
    '--case-timeout-ms',
    values['case-timeout-ms'],
    60_000,
    LONGEST_TIMER_MS,
  );
  const out = reportFolder(values.out ?? 'readiness-report');
  const report = await readinessRun({
    command,
    cases: cases as CaseId[] | undefined,
    parallel,
    caseTimeoutMs,
    onRun: (name, verdict) => console.error(`readiness: ${name}: ${verdict}`),
  });
  process.stdout.write(runReportMarkdown(report));
  const files = writeRunReport(out, report);
  console.error(`readiness: reports in ${out}/ (${files.join(', ')})`);
  if (runFailed(report)) return 1;
  return judgedNothing(report) ? 3 : 0;
}
