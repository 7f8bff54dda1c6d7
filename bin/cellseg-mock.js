#!/usr/bin/env node
/* global process, console, URL */
// `cellseg-mock start [options]`: runs mock-server/main.ts in this very process through tsx's ESM
// loader. No child process means SIGINT/SIGTERM reach main.ts's graceful shutdown directly (a
// container's `docker stop` included) and the exit code is main.ts's own. The decoder child
// processes start with tsx's loader themselves (mock-server/runtime/decoder-pool/child-command.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const mainPath = fileURLToPath(new URL('mock-server/main.ts', root));

const COMMANDS = `Usage: cellseg-mock [command] [options]

Commands:
  start [options]   run the mock (the default command: 'cellseg-mock --port 9000' starts it too)
  help              print this text and the options of start
  version           print the version
`;

const args = process.argv.slice(2);
const named = args.length > 0 && !args[0].startsWith('-');
const command = named ? args[0] : 'start';
let options = named ? args.slice(1) : args;

if (command === 'version' || options.includes('--version') || options.includes('-v')) {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  console.log(`${pkg.name} ${pkg.version}`);
  process.exit(0);
}
if (command === 'help') options = ['--help'];
else if (command !== 'start') {
  console.error(`cellseg-mock: unknown command '${command}'\n\n${COMMANDS}`);
  process.exit(2);
}
if (options.includes('--help') || options.includes('-h')) console.log(COMMANDS);

let register;
try {
  ({ register } = await import('tsx/esm/api'));
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
  console.error(
    'cellseg-mock: the TypeScript loader `tsx` is not installed next to this package.\n' +
      'Run `npm ci` in the checkout (or install the package with its dependencies) and try again.',
  );
  process.exit(1);
}
register();
// main.ts reads its options from process.argv.slice(2).
process.argv = [process.argv[0], mainPath, ...options];
await import(new URL('mock-server/main.ts', root).href);
