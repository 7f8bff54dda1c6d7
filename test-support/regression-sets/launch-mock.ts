import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A healthy mock started as its own program (as `npm start` does) on a free port. */

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface LaunchedMock {
  url: string;
  /** Everything back to the seed, so one regression's leftovers never reach the next run. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function launchMock(): Promise<LaunchedMock> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['bin/cellseg-mock.js', 'start', '--port', '0', '--log-level', 'warn'],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the mock did not start in 60 s:\n${seen}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const found = seen.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (seen += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`the mock exited (${code}) before listening:\n${seen}`)));
  });
  // Keep reading so a chatty mock never blocks on a full pipe.
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url,
    async reset() {
      const answer = await fetch(`${url}/__mock/reset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (answer.status !== 200)
        throw new Error(`POST /__mock/reset answered ${answer.status}: ${await answer.text()}`);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
