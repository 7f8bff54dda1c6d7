import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventually, launchMock, REPO_ROOT, type LaunchedMock } from '../../../test-support/launched-mock.js';

/** The container's entry, read from the Dockerfile so the test follows it. */
function containerCommand(): string[] {
  const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const json = (instruction: string) =>
    JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(dockerfile)![1]) as string[];
  return [...json('ENTRYPOINT'), ...json('CMD')];
}

const [entry, ...entryArgs] = containerCommand();

/**
 * In the checkout, `npx cellseg-mock` makes npm install the checkout itself into its npx cache, and
 * npm runs a linked package's `prepare`: a rebuild of this checkout's dist/ (20 s) while other test
 * files run the mock from it. On a fresh machine (CI) that broke a start-up test with a missing
 * chunk. Scripts are off for this launch, and the cache is fresh for each run, so the install
 * happens here on every machine, not only on the first run of a new one.
 */
const NPX_CACHE = mkdtempSync(path.join(os.tmpdir(), 'stopping-npx-cache-'));
afterAll(() => rmSync(NPX_CACHE, { recursive: true, force: true }));
const builtAt = () => statSync(path.join(REPO_ROOT, 'dist', '.built'), { throwIfNoEntry: false })?.mtimeMs;
const LAUNCHERS: Array<{ name: string; command: string; args: string[]; env?: NodeJS.ProcessEnv }> = [
  { name: 'npm start', command: 'npm', args: ['start', '--', '--port', '0'] },
  {
    name: 'npx cellseg-mock',
    command: 'npx',
    args: ['cellseg-mock', 'start', '--port', '0'],
    env: { npm_config_ignore_scripts: 'true', npm_config_cache: NPX_CACHE },
  },
  { name: 'the bin', command: process.execPath, args: ['bin/cellseg-mock.js', 'start', '--port', '0'] },
  {
    name: "the container's entry",
    command: entry === 'node' ? process.execPath : entry,
    args: entryArgs,
    env: { PORT: '0', HOST: '127.0.0.1' },
  },
];

function portOpen(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

let launched: LaunchedMock | undefined;
afterEach(() => launched?.kill());

describe.each(LAUNCHERS)('stopping the mock started with $name', (launcher) => {
  // npm runs the mock under `sh -c`, and a POSIX shell holds a SIGINT until its child exits: a
  // SIGINT sent to npm alone never reaches the mock (docs/running.md says so). Ctrl-C in a terminal
  // signals the whole process group, which the direct launchers cover.
  const direct = launcher.command === process.execPath;
  const signals: NodeJS.Signals[] = direct ? ['SIGTERM', 'SIGINT'] : ['SIGTERM'];
  it.each(signals)(
    '%s to that process alone stops the mock gracefully and frees the port',
    async (signal) => {
      const buildBefore = builtAt();
      launched = launchMock(launcher.command, launcher.args, launcher.env);
      const url = await launched.url;
      expect(builtAt(), "the checkout's dist/ was rebuilt by this launch").toBe(buildBefore);
      expect((await fetch(`${url}/__mock/health`)).status).toBe(200);
      launched.child.kill(signal);
      const gone = await eventually(async () => !launched!.treeAlive() && !(await portOpen(url)), 60_000);
      expect(gone, launched.output()).toBe(true);
      expect(launched.output()).toContain('Stopped.');
    },
    180_000,
  );
});
