/**
 * `npm run sabotage -- <case> [--port N] [--target URL]`: one deliberately broken build, to point
 * the contract suite (or curl) at by hand, as the worked examples of docs/contract-suite.md do. The
 * sabotage proxy of `<case>` listens on --port (default: a free one) in front of --target, or of a
 * mock started here on the seeded organizations (predictions after 10 ms, as suite-can-fail runs
 * it). Prints the proxy's URL and the keys to use, and runs until Ctrl-C. Without a case, or with
 * --help: the cases and the clauses each breaks.
 */
import { mockKeys } from '../contract-tests/harness/target.js';
import { commandLine } from './command-line.js';
import { launchSabotageTarget, type LaunchedMock } from './launched-mock.js';
import { SABOTAGES, type Sabotage } from './sabotage-catalogue.js';
import { startSabotageProxy } from './sabotage-proxy.js';

function usage(): string {
  const cases = Object.entries(SABOTAGES).map(
    ([name, c]) => `  ${name.padEnd(24)} breaks ${c.breaks.join(', ')}`,
  );
  return [
    'usage: npm run sabotage -- <case> [--port N] [--target URL]',
    '',
    '  --port N       where the proxy listens (default 0: a free port)',
    '  --target URL   what the proxy stands in front of (default: a mock started here)',
    '  --help, -h     this text',
    '',
    'cases:',
    ...cases,
  ].join('\n');
}

const { values, positionals } = commandLine('sabotage', usage(), {
  allowPositionals: true,
  options: {
    port: { type: 'string', default: '0' },
    target: { type: 'string' },
  },
});

const name = positionals[0];
if (name === undefined) {
  console.log(usage());
  process.exit(0);
}
if (!(name in SABOTAGES)) {
  console.error(`sabotage: no case '${name}'\n\n${usage()}`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`sabotage: --port must be a port number (0 for a free one), not '${values.port}'`);
  process.exit(2);
}

// the seeded organizations' keys, as the contract suite reads them
const { main, other = '', tiny = '' } = mockKeys();

let mock: LaunchedMock | undefined;
let target = values.target?.replace(/\/+$/, '');
if (!target) {
  mock = launchSabotageTarget();
  target = await mock.url.catch((err: Error) => {
    console.error(`sabotage: ${err.message}`);
    process.exit(1);
  });
}
const proxy = await startSabotageProxy(target, name as Sabotage, { main, other }, port).catch(
  (err: Error) => {
    mock?.kill();
    console.error(`sabotage: cannot listen on port ${port}: ${err.message}`);
    process.exit(1);
  },
);
console.log(
  [
    `sabotage ${name} (breaks ${SABOTAGES[name as Sabotage].breaks.join(', ')}) listening on ${proxy.url}, in front of ${target}${mock ? ' (a mock started here)' : ''}`,
    "the seeded organizations' keys:",
    `  CONTRACT_API_KEY=${main} CONTRACT_OTHER_ORG_API_KEY=${other} CONTRACT_TINY_API_KEY=${tiny}`,
    'Ctrl-C stops it.',
  ].join('\n'),
);

async function stop(): Promise<void> {
  await proxy.close();
  mock?.kill();
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
