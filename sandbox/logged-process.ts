import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One piece of the sandbox: a process whose output goes to a log file of its own. */
export interface LoggedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  readonly exited: Promise<Exit>;
  /** Whether it has exited (for whatever reason). */
  hasExited(): boolean;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts a piece in a process group of its own, its stdout and stderr appended to `logFile`: a
 * Ctrl-C at the terminal reaches the launcher alone, which stops the pieces in order (the load
 * balancer first, the database last) instead of all of them at once.
 */
export function spawnLogged(
  name: string,
  command: string,
  args: string[],
  logFile: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<LoggedProcess> {
  const log = openSync(logFile, 'a');
  let child;
  try {
    child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', log, log],
      detached: true,
    });
  } finally {
    closeSync(log);
  }
  let done = false;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    }),
  );
  return new Promise((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`${name} could not start (${command}): ${err.message}`)));
    child.once('spawn', () =>
      resolve({
        name,
        pid: child.pid!,
        logFile,
        exited,
        hasExited: () => done,
        kill(signal: NodeJS.Signals = 'SIGTERM') {
          if (!done) child.kill(signal);
        },
      }),
    );
  });
}

/** What a person reads about an exit: "exited with code 1" or "was killed by SIGKILL". */
export function describeExit({ code, signal }: Exit): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}
