/**
 * `npm run contract -- [options]`: the contract suite against any target, with its report.
 *
 *   (no --base-url)        start the mock inside the run and check it (profile mock; a separate process with --via-prism)
 *   --base-url URL         check this target; keys from CONTRACT_API_KEY, CONTRACT_OTHER_ORG_API_KEY, CONTRACT_TINY_API_KEY
 *                          and CONTRACT_SECOND_API_KEY (another key of the main organization; optional, like the two before it)
 *   --profile P            mock | staging | production (default: staging with --base-url)
 *   --enable LIST          caps,control,load: allow these outside the mock profile
 *   --via-prism            put `prism proxy --errors` in front of the target, so Prism judges every response too
 *   --against-prism-mock   check Prism's spec-only mock of our own document
 *   --poll-timeout-ms N, --poll-interval-ms N, --pace-ms N
 *   --request-timeout-ms N  the longest wait for one whole answer, headers and body (default 30000; raise it for a target whose single-request upload takes longer)
 *   --max-body-bytes N     the most the suite reads of one answer's body, decompressed (default 67108864)
 *   --report-dir DIR       where the reports go (default reports/)
 *   --cleanup-only         delete what an interrupted run left behind (from <report-dir>/contract-ledger.jsonl), and stop;
 *                          with --base-url, only that target's leftovers (needed when the ledger names several)
 *   --partner FILE         replay a partner's recorded contract (cellseg-mock contract record) instead of the suite's
 *                          checks: per-interaction reports partner.{md,html,json} (docs/partner-contracts.md)
 *   --compare A B          run the same checks against two targets and write a parity report (parity.{md,html,json});
 *                          A and B are `mock` (a mock started for the run) or a base URL. Keys of a URL target come
 *                          from CONTRACT_A_API_KEY, CONTRACT_A_OTHER_ORG_API_KEY, CONTRACT_A_TINY_API_KEY (B likewise),
 *                          falling back to the unprefixed variables; each side's reports go to <report-dir>/a and /b
 *
 * Colour codes are written only when stdout is a terminal (or FORCE_COLOR is set).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { startMockProcess, startPrism, type Running } from './harness/child-processes.js';
import { cleanupOnly } from './cleanup-only.js';
import { withExplorationDefault } from './exploration-length.js';
import { REPO_ROOT } from './harness/openapi-contract.js';
import { KEY_VARIABLES, keyProblem, type KeyNames, type KeyRole } from './harness/preflight.js';
import { mockKeys, targetFromEnv } from './harness/target.js';
import { verifyPartnerContract } from './partner/verify.js';
import { writeParityReport } from './report/parity.js';
import { shownPath } from './report/shown-path.js';

interface Options {
  baseUrl?: string;
  profile?: string;
  enable?: string;
  viaPrism: boolean;
  againstPrismMock: boolean;
  cleanupOnly: boolean;
  compare?: [string, string];
  partner?: string;
  reportDir?: string;
  env: Record<string, string>;
}

/** Options that only set a variable of the suite (harness/target.ts reads them). */
const VARIABLE_OPTIONS: Record<string, string> = {
  'poll-timeout-ms': 'CONTRACT_POLL_TIMEOUT_MS',
  'poll-interval-ms': 'CONTRACT_POLL_INTERVAL_MS',
  'pace-ms': 'CONTRACT_PACE_MS',
  'request-timeout-ms': 'CONTRACT_REQUEST_TIMEOUT_MS',
  'max-body-bytes': 'CONTRACT_MAX_BODY_BYTES',
};

const OPTIONS = {
  'base-url': { type: 'string' },
  profile: { type: 'string' },
  enable: { type: 'string' },
  'report-dir': { type: 'string' },
  'via-prism': { type: 'boolean' },
  'against-prism-mock': { type: 'boolean' },
  'cleanup-only': { type: 'boolean' },
  // `--compare A B`: A is the option's value, B the one positional argument allowed.
  compare: { type: 'string' },
  partner: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...Object.fromEntries(Object.keys(VARIABLE_OPTIONS).map((name) => [name, { type: 'string' }])),
} as const satisfies ParseArgsConfig['options'];

function parse(argv: string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (err) {
    fail(commandLineError(err as Error & { code?: string }));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(
      readFileSync(new URL(import.meta.url), 'utf8')
        .split('*/')[0]
        .replace(/^\/\*\*?\n?/, '')
        .replace(/^ \* ?/gm, ''),
    );
    process.exit(0);
  }
  if (values.compare !== undefined && positionals.length === 0) fail('--compare needs two targets');
  const extra = positionals.slice(values.compare !== undefined ? 1 : 0);
  if (extra.length) fail(`unknown option '${extra[0]}' (see --help)`);
  const env: Record<string, string> = {};
  for (const [name, variable] of Object.entries(VARIABLE_OPTIONS)) {
    const value = values[name as keyof typeof values];
    if (typeof value === 'string') env[variable] = value;
  }
  return {
    baseUrl: values['base-url'],
    profile: values.profile,
    enable: values.enable,
    reportDir: values['report-dir'] === undefined ? undefined : path.resolve(values['report-dir']),
    viaPrism: values['via-prism'] ?? false,
    againstPrismMock: values['against-prism-mock'] ?? false,
    cleanupOnly: values['cleanup-only'] ?? false,
    compare: values.compare === undefined ? undefined : [values.compare, positionals[0]],
    partner: values.partner === undefined ? undefined : path.resolve(values.partner),
    env,
  };
}

/** parseArgs' errors in the words this command has always used (the option named as given). */
function commandLineError(err: Error & { code?: string }): string {
  const named = /'(-[^' ]*)/.exec(err.message)?.[1] ?? '';
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${named}' (see --help)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take/.test(err.message) ? `${named} takes no value` : `${named} needs a value`;
    default:
      return err.message;
  }
}

function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(2);
}

/** A mock we started (ours or Prism's) knows the seeded organizations: use their keys, profile mock. */
function useSeededKeys(profile: string | undefined): void {
  const keys = mockKeys();
  Object.assign(process.env, {
    CONTRACT_API_KEY: keys.main,
    CONTRACT_OTHER_ORG_API_KEY: keys.other,
    CONTRACT_TINY_API_KEY: keys.tiny,
  });
  process.env.CONTRACT_PROFILE = profile ?? 'mock';
}

/** Runs the contract project once against the target the environment names; answers the exit code. */
async function runChecks(): Promise<number> {
  // Imported here, after NO_COLOR is settled: vitest's colours are decided when it loads.
  const { startVitest } = await import('vitest/node');
  const vitest = await startVitest('test', [], { root: REPO_ROOT, project: ['contract'], watch: false });
  const failed = vitest?.state.getCountOfFailedTests() ?? 1;
  await vitest?.close();
  return failed > 0 || process.exitCode ? 1 : 0;
}

/**
 * Stops the run before any check when a key is missing or refused: one line naming the variable.
 * `side` (with --compare, e.g. "B (https://staging…)") says which target the line is about.
 */
async function preflight(baseUrl: string, names: KeyNames = KEY_VARIABLES, side = ''): Promise<void> {
  const problem = await keyProblem(
    baseUrl,
    {
      main: process.env.CONTRACT_API_KEY,
      other: process.env.CONTRACT_OTHER_ORG_API_KEY,
      tiny: process.env.CONTRACT_TINY_API_KEY,
      second: process.env.CONTRACT_SECOND_API_KEY,
    },
    names,
  );
  if (problem) {
    const error = new Error(side ? `${side}: ${problem}` : problem);
    (error as Error & { exitCode: number }).exitCode = 2;
    throw error;
  }
}

async function checkTarget(options: Options, started: Running[], names?: KeyNames): Promise<number> {
  let baseUrl = options.baseUrl;
  if (options.againstPrismMock) {
    const prism = await startPrism('mock');
    started.push(prism);
    baseUrl = prism.url;
    useSeededKeys(options.profile);
    console.log(`Checking Prism's spec-only mock of openapi/openapi.yaml at ${baseUrl}`);
  } else if (!baseUrl && !options.viaPrism) {
    // The suite's own setup starts the mock (test-support/contract-global-setup.ts) while vitest
    // loads, instead of before it; the checks reach it over HTTP only.
    delete process.env.CONTRACT_BASE_URL;
    process.env.CONTRACT_PROFILE = options.profile ?? 'mock';
    if (options.enable) process.env.CONTRACT_ENABLE = options.enable;
    console.log(
      `Contract suite against a mock started for the run (profile ${process.env.CONTRACT_PROFILE})`,
    );
    return runChecks();
  } else if (!baseUrl) {
    console.log('Starting the mock...');
    const mock = await startMockProcess();
    started.push(mock);
    baseUrl = mock.url;
    useSeededKeys(options.profile);
  } else if (options.profile) {
    process.env.CONTRACT_PROFILE = options.profile;
  }
  await preflight(baseUrl, names);
  if (options.enable) process.env.CONTRACT_ENABLE = options.enable;
  process.env.CONTRACT_TARGET_LABEL = baseUrl;
  if (options.viaPrism) {
    const prism = await startPrism('proxy', baseUrl);
    started.push(prism);
    console.log(`Prism ${prism.url} -> ${baseUrl}: every response is also judged by Prism (--errors)`);
    baseUrl = prism.url;
    process.env.CONTRACT_VIA_PRISM = '1';
  }
  process.env.CONTRACT_BASE_URL = baseUrl;
  console.log(
    `Contract suite against ${process.env.CONTRACT_TARGET_LABEL} (profile ${process.env.CONTRACT_PROFILE ?? 'staging'})`,
  );
  return runChecks();
}

interface Side {
  letter: 'A' | 'B';
  /** `mock`, or a base URL. */
  target: string;
  env: NodeJS.ProcessEnv;
  /** Where each key came from, as the user should be told. */
  names: KeyNames;
}

/**
 * A side's environment: its own report folder, and its keys from CONTRACT_<letter>_* where set,
 * else the unprefixed variables; `names` records which, so a refused key is named as it was given.
 */
function side(letter: Side['letter'], target: string, saved: NodeJS.ProcessEnv, root: string): Side {
  const env: NodeJS.ProcessEnv = { ...saved, CONTRACT_REPORT_DIR: path.join(root, letter.toLowerCase()) };
  const names = { ...KEY_VARIABLES } as KeyNames;
  for (const [role, variable] of Object.entries(KEY_VARIABLES) as Array<[KeyRole, string]>) {
    const prefixed = variable.replace(/^CONTRACT_/, `CONTRACT_${letter}_`);
    if (saved[prefixed] !== undefined) {
      env[variable] = saved[prefixed];
      names[role] = prefixed;
    } else if (saved[variable] !== undefined) names[role] = `${variable} (${prefixed} is not set)`;
    else names[role] = `${prefixed} (or ${variable})`;
  }
  return { letter, target, env, names };
}

/** Both targets in turn, each with its own keys and report folder, then the parity report. */
async function compare(options: Options, started: Running[]): Promise<number> {
  const root = process.env.CONTRACT_REPORT_DIR || path.join(REPO_ROOT, 'reports');
  const saved = { ...process.env };
  const sides = [side('A', options.compare![0], saved, root), side('B', options.compare![1], saved, root)];
  // Every key of both sides is tried before either runs: a refused B key is said at once, not
  // after A's whole run.
  for (const { letter, target, env, names } of sides) {
    if (target === 'mock') continue;
    process.env = env;
    await preflight(target, names, `${letter} (${target})`);
  }
  const codes: number[] = [];
  for (const { letter, target, env, names } of sides) {
    process.env = { ...env };
    console.log(`\n=== ${letter}: ${target} ===`);
    codes.push(
      await checkTarget({ ...options, baseUrl: target === 'mock' ? undefined : target }, started, names),
    );
  }
  process.env = saved;
  const parity = writeParityReport(
    sides[0].env.CONTRACT_REPORT_DIR!,
    sides[1].env.CONTRACT_REPORT_DIR!,
    root,
  );
  console.log(
    `\nParity: ${parity.clauses.agree} clauses agree, ${parity.clauses.differ} differ; ${parity.operations.agree} operations agree, ${parity.operations.differ} differ; report in ${shownPath(root)}/parity.{md,html,json}`,
  );
  return Math.max(...codes, parity.clauses.differ ? 1 : 0);
}

/** A partner's contract against the target (a mock started for the run without --base-url). */
async function partner(options: Options, file: string, started: Running[]): Promise<number> {
  let baseUrl = options.baseUrl;
  if (!baseUrl) {
    console.log('Starting the mock...');
    const mock = await startMockProcess();
    started.push(mock);
    baseUrl = mock.url;
    useSeededKeys(options.profile);
  } else if (options.profile) process.env.CONTRACT_PROFILE = options.profile;
  await preflight(baseUrl);
  if (options.enable) process.env.CONTRACT_ENABLE = options.enable;
  process.env.CONTRACT_BASE_URL = baseUrl;
  return verifyPartnerContract(file, targetFromEnv(process.env));
}

async function main(): Promise<number> {
  // Colour codes only for a terminal: CI logs and files read them as noise.
  if (!process.stdout.isTTY && !('FORCE_COLOR' in process.env)) process.env.NO_COLOR = '1';
  const options = parse(process.argv.slice(2));
  Object.assign(process.env, options.env);
  // a partner's run explores longer than a check run on its own (exploration-length.ts says why)
  process.env = withExplorationDefault(process.env);
  if (options.reportDir) process.env.CONTRACT_REPORT_DIR = options.reportDir;
  if (options.cleanupOnly) return cleanupOnly(options.baseUrl ?? process.env.CONTRACT_BASE_URL);
  const started: Running[] = [];
  try {
    if (options.partner) return await partner(options, options.partner, started);
    return options.compare ? await compare(options, started) : await checkTarget(options, started);
  } finally {
    for (const process_ of started.reverse()) await process_.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`error: ${err instanceof Error ? err.message : err}`);
    process.exit((err as { exitCode?: number }).exitCode ?? 1);
  },
);
