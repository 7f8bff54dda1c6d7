import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, launchMock, REPO_ROOT, type LaunchedMock } from '../test-support/launched-mock.js';

/** The container's entry, read from the Dockerfile so the test follows it. */
function containerCommand(): string[] {
  const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const json = (instruction: string) =>
    JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(dockerfile)![1]) as string[];
  return [...json('ENTRYPOINT'), ...json('CMD')];
}

const [entry, ...entryArgs] = containerCommand();
const LAUNCHERS: Array<{ name: string; command: string; args: string[]; env?: NodeJS.ProcessEnv }> = [
  { name: 'npm start', command: 'npm', args: ['start', '--', '--port', '0'] },
  { name: 'npx cellseg-mock', command: 'npx', args: ['cellseg-mock', 'start', '--port', '0'] },
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
      launched = launchMock(launcher.command, launcher.args, launcher.env);
      const url = await launched.url;
      expect((await fetch(`${url}/__mock/health`)).status).toBe(200);
      launched.child.kill(signal);
      const gone = await eventually(async () => !launched!.treeAlive() && !(await portOpen(url)), 60_000);
      expect(gone, launched.output()).toBe(true);
      expect(launched.output()).toContain('Stopped.');
    },
    180_000,
  );
});
