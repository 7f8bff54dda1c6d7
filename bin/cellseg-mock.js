#!/usr/bin/env node
/* global process, console, URL */
// `cellseg-mock start [options]`: runs the mock in this very process, from dist/ (built once by
// `npm run build`, which `npm ci`/`npm install` and `npm pack` run), so nothing is compiled at
// start. No child process means SIGINT/SIGTERM reach main's graceful shutdown directly (a
// container's `docker stop` included) and the exit code is main's own.
// In a checkout whose sources are newer than dist/ (an edit since the last build), it runs the
// sources through tsx instead, so a stale build is never what answers.
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { builtIsCurrent } from './dist-status.js';
import { unsupportedNode } from './node-support.js';

// Node 22+ caches the compiled code of every module it loads (in the OS temporary folder), so a
// second start skips most parsing; Node 20 has no such cache and starts as before.
module.enableCompileCache?.();

const root = new URL('../', import.meta.url);

const COMMANDS = `Usage: cellseg-mock [command] [options]

Commands:
  start [options]   run the mock (the default command: 'cellseg-mock --port 9000' starts it too)
  contract record --org <key> --out <file> [--base-url URL]
                    an organization's journal on a running mock as a partner contract (docs/partner-contracts.md)
  contract verify <file> [--base-url URL] [--key KEY]
                    replays a partner contract against a running mock or staging
  readiness --org <key> [--base-url URL] [--format md|html|json]
                    what an organization's client has met, and the production cases it has not (docs/readiness.md)
  readiness run [--cases a,b] [--parallel N] [--case-timeout-ms N] [--out DIR] -- <your test command>
                    runs your tests once per case on a fresh mock armed with it; reports in DIR
  help              print this text and the options of start
  version           print the version (also --version)
`;

const args = process.argv.slice(2);
const named = args.length > 0 && !args[0].startsWith('-');
const command = named ? args[0] : 'start';
let options = named ? args.slice(1) : args;

// What follows `--` is another program's (readiness run's test command, whose -v is its own).
const own = options.includes('--') ? options.slice(0, options.indexOf('--')) : options;
if (command === 'version' || own.includes('--version') || own.includes('-v')) {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  console.log(`${pkg.name} ${pkg.version}`);
  process.exit(0);
}
if (command === 'help') options = ['--help'];
else if (command === 'contract') {
  await runContractCommand(options);
} else if (command === 'readiness') {
  await runReadinessCommand(options);
} else if (command !== 'start') {
  console.error(`cellseg-mock: unknown command '${command}' (cellseg-mock help lists the commands)`);
  process.exit(2);
}
if (options.includes('--help') || options.includes('-h')) console.log(COMMANDS);

const tooOld = unsupportedNode(root);
if (tooOld) {
  console.error(tooOld);
  process.exit(1);
}

// main reads its options from process.argv.slice(2).
process.argv = [process.argv[0], 'cellseg-mock', ...options];
if (builtIsCurrent(root)) {
  await import(new URL('dist/mock-server/main.js', root).href);
} else {
  await runSources();
}

// The recorder and the replayer are part of the contract suite (contract-tests/partner/): the build
// bundles them into dist/ for the package; a checkout whose build is stale runs them from the
// sources through tsx, as it runs the mock.
async function runContractCommand(contractOptions) {
  const built = new URL('dist/contract-tests/partner/contract-command.js', root);
  let entry = built;
  if (!builtIsCurrent(root) || !existsSync(built)) {
    entry = new URL('contract-tests/partner/contract-command.ts', root);
    const { register } = await import('tsx/esm/api');
    register();
  }
  const { contractCommand } = await import(entry.href);
  process.exit(await contractCommand(contractOptions));
}

// Readiness starts mocks of its own, so it is an entry of the mock's own bundle (sharing its chunks).
async function runReadinessCommand(readinessOptions) {
  const tooOldForIt = unsupportedNode(root);
  if (tooOldForIt) {
    console.error(tooOldForIt);
    process.exit(1);
  }
  let entry = new URL('dist/mock-server/readiness-command.js', root);
  if (!builtIsCurrent(root) || !existsSync(entry)) {
    entry = new URL('mock-server/readiness/readiness-command.ts', root);
    const { register } = await import('tsx/esm/api');
    register();
  }
  const { readinessCommand } = await import(entry.href);
  process.exit(await readinessCommand(readinessOptions));
}

async function runSources() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    console.error(
      'cellseg-mock: dist/ is missing or older than the sources, and tsx is not installed to run them.\n' +
        'Run `npm run build` (or `npm ci`) in the checkout and try again.',
    );
    process.exit(1);
  }
  // Said to a person at a terminal only: scripts and tests read stdout and stderr as the mock's own.
  if (process.stdout.isTTY)
    console.error(
      'cellseg-mock: sources changed since the last build; running them through tsx (npm run build makes start fast again)',
    );
  register();
  await import(new URL('mock-server/main.ts', root).href);
}
