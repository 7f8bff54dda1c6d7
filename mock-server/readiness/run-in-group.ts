/**
 * The partner's command, run in a process group of its own so that a time limit ends it and
 * everything it started (a test runner's workers, a shell's children) at once.
 */
import { spawn } from 'node:child_process';

export interface CommandOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** The last lines of its standard output and error, interleaved as they came. */
  lastLines: string[];
}

const KEPT_LINES = 20;

/** One word is run by a shell (`-- "npm test && ..."`); several are the program and its arguments. */
export function runInGroup(
  command: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<CommandOutcome> {
  const started = Date.now();
  const [program, ...args] = command;
  const child = spawn(program, args, {
    shell: command.length === 1,
    detached: true,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8'))
      .split('\n')
      .slice(-KEPT_LINES - 1)
      .join('\n');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group has ended already.
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (exitCode: number | null, signal: string | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // What the command left running in its group ends with it.
      killGroup();
      const lines = tail.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
      if (error) lines.push(`could not start: ${error.message}`);
      resolve({
        exitCode,
        signal,
        timedOut,
        durationMs: Date.now() - started,
        lastLines: lines.slice(-KEPT_LINES),
      });
    };
    child.once('error', (err) => finish(null, null, err));
    // A child of the command holding its output open would keep 'close' away: the group ends with it.
    child.once('exit', killGroup);
    child.once('close', (code, signal) => finish(code, signal));
  });
}
