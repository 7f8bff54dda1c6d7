import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** A mock started as its own process, as a user runs it: killable with a real SIGKILL. */
export interface MockProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr, for a failure message. */
  stderr(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the mock of the checkout at `root` as a user does (`bin/cellseg-mock.js`: the build when
 * it is current, else the sources through tsx, in this one process either way) on a free port
 * with `--data-dir dataDir`.
 */
export function startMockProcess(
  root: string,
  dataDir: string,
  extraArgs: string[] = [],
): Promise<MockProcess> {
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'bin/cellseg-mock.js'),
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      'silent',
      '--prediction-start-delay-ms',
      '0',
      '--prediction-run-delay-ms',
      '0',
      ...extraArgs,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('the mock did not print its URL within 60 s')), 60_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n${stderr}`));
    };
    const early = (code: number | null) => fail(new Error(`the mock exited with ${code} before it listened`));
    child.once('exit', early);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', early);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        url: match[1],
        child,
        stderr: () => stderr,
        async kill(signal) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
  });
}
