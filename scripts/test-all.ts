/**
 * `npm test`: the static checks and the tests at once. Each static check is one process on one
 * core (tsc, eslint, prettier, redocly...), while vitest spreads over all of them; run one after
 * the other, the static checks alone would leave a core idle for a minute. Here they run in a lane
 * of their own beside vitest, and each one's output is printed whole when it ends.
 * The exit code is 1 when any step failed.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unsupportedNode } from '../bin/node-support.js';

interface Step {
  name: string;
  command: string;
  args: string[];
}

const tooOld = unsupportedNode(new URL('../', import.meta.url));
if (tooOld) {
  console.error(`npm test: ${tooOld}`);
  process.exit(1);
}

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
  .scripts;
/** A package.json script as `npm run` runs it (sh, the installed tools on PATH), without starting npm for each. */
const script = (name: string): Step => {
  if (scripts[name] === undefined) throw new Error(`npm test: package.json has no script '${name}'`);
  return { name, command: 'sh', args: ['-c', scripts[name]] };
};

/** `npm run lint`'s own steps (`npm run a && npm run b ...`), each run as a step of its own. */
const lintSteps = scripts.lint
  .split('&&')
  .map((step) => step.trim())
  .map((step): Step => {
    const named = /^npm run (\S+)$/.exec(step);
    return named ? script(named[1]) : { name: step, command: 'sh', args: ['-c', step] };
  });

/** One after the other: together they keep about one core busy. */
const STATIC_CHECKS = [script('typecheck'), ...lintSteps, script('types:check')];
const TESTS: Step = {
  name: 'vitest',
  command: path.join('node_modules', '.bin', 'vitest'),
  args: ['run', ...process.argv.slice(2)],
};

/**
 * The tests' temporary folder, one per run, removed when it ends: tests kill processes on purpose
 * (crash recovery, kill -9 of an instance), and a mock killed that way cannot remove its own data
 * folder. Node's compile cache stays in the usual place, so launched mocks still start warm.
 */
const runTemp = mkdtempSync(path.join(os.tmpdir(), 'cellseg-test-run-'));
// Open to every user, as the temporary folder is: the throwaway PostgreSQL runs as `postgres`.
chmodSync(runTemp, 0o1777);
const TEMP_ENV = {
  TMPDIR: runTemp,
  // the contract project's longer stateful exploration (vitest.config.ts says why)
  CELLSEG_DEEP_EXPLORATION: '1',
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'node-compile-cache'),
};

function run(step: Step, live: boolean): Promise<{ step: Step; code: number; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, {
      stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PATH: `${path.resolve('node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
        ...(step === TESTS ? TEMP_ENV : {}),
      },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', (err) => resolve({ step, code: 1, output: `${output}${err.message}\n`, ms: 0 }));
    child.on('close', (code) => resolve({ step, code: code ?? 1, output, ms: Date.now() - started }));
  });
}

async function staticChecks(): Promise<boolean> {
  let ok = true;
  for (const step of STATIC_CHECKS) {
    const { code, output, ms } = await run(step, false);
    const text = output.replace(/^npm warn Unknown user config.*\n/gm, '').trimEnd();
    console.log(
      `\n[${step.name}] ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${(ms / 1000).toFixed(1)} s`,
    );
    if (text) console.log(text);
    if (code !== 0) ok = false;
  }
  return ok;
}

const [staticOk, tests] = await Promise.all([staticChecks(), run(TESTS, true)]);
const leftMocks = readdirSync(runTemp).filter((name) => name.startsWith('cellseg-mock-')).length;
rmSync(runTemp, { recursive: true, force: true, maxRetries: 3 });
if (leftMocks)
  console.log(
    `npm test: removed ${leftMocks} data folder(s) of mocks that tests killed, with the run's temporary folder`,
  );
if (!staticOk) console.error('\nnpm test: a static check failed (see its output above)');
process.exit(staticOk && tests.code === 0 ? 0 : 1);
