import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface LaunchedMock {
  child: ChildProcess;
  /** Everything the process tree printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves with the base URL once the banner names it. */
  url: Promise<string>;
  exited: Promise<number | null>;
  /** True while any process of the launched tree is alive (it runs in its own process group). */
  treeAlive(): boolean;
  /** Ends whatever is left of the tree (SIGKILL to the group); for cleanup after a failed test. */
  kill(): void;
}

/**
 * Starts the mock as a user would (`npm start`, `npx cellseg-mock`, `node bin/...`) in a process
 * group of its own, so a test can signal only the launcher, as a CI runner or a supervisor does,
 * and still see whether anything of the tree survived.
 */
export function launchMock(command: string, args: string[], env: NodeJS.ProcessEnv = {}): LaunchedMock {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
  });
  let text = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', () => reject(new Error(`the mock exited before listening:\n${text}`)));
  });
  url.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (!args.includes('--data-dir')) removeTemporaryData(text);
      resolve(code);
    }),
  );
  const pgid = child.pid!;
  return {
    child,
    output: () => text,
    url,
    exited,
    treeAlive() {
      try {
        process.kill(-pgid, 0);
        return true;
      } catch {
        return false;
      }
    },
    kill() {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/**
 * A mock without --data-dir keeps its data in a folder of its own that it removes when it stops;
 * one killed (SIGKILL, as tests end what is left of a tree) cannot, and the folder would stay in
 * the temporary folder after the run. Only the folder the banner names, and only one the mock made.
 */
function removeTemporaryData(output: string): void {
  const folder = /^ {2}Data: +(\S+)$/m.exec(output)?.[1];
  if (folder && path.dirname(folder) === os.tmpdir() && /^cellseg-mock-\w{6}$/.test(path.basename(folder)))
    rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * The healthy mock the sabotage proxies sit in front of: a process of its own (the build, when
 * current), as the contract suite's own setup starts it, with predictions after 10 ms.
 */
export function launchSabotageTarget(): LaunchedMock {
  return launchMock(process.execPath, [
    'bin/cellseg-mock.js',
    '--port',
    '0',
    '--prediction-start-delay-ms',
    '10',
    '--prediction-run-delay-ms',
    '10',
  ]);
}

export { freePort } from '../contract-tests/harness/child-processes.js';

/** Re-checks `condition` every 50 ms until it holds; false if it still does not after `limitMs`. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  limitMs: number,
): Promise<boolean> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}
