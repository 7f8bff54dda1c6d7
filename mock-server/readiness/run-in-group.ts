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
/** Of a longer line, its start: output with no line break must neither grow nor slow the runner. */
const LINE_CHARS = 1000;
/** How long output held open past the command's exit is still read. */
const OUTPUT_GRACE_MS = 1000;

/**
 * What a signal ending the runner ends first: the groups running now (detached, they get no Ctrl-C or
 * CI's SIGTERM meant for the runner, and would run on, forever for a command that hangs) and the
 * runs' mocks (each closing removes its temporary data folder).
 */
const enders = new Set<() => unknown>();
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** How long the mocks may take to close before the runner ends without them; a second signal ends it at once. */
const ENDING_BOUND_MS = 5000;
let ending = false;

function endAllAndStop(signal: NodeJS.Signals): void {
  if (ending) return stop(signal);
  ending = true;
  const ended = Promise.allSettled([...enders].map(async (end) => end()));
  const bound = new Promise((resolve) => setTimeout(resolve, ENDING_BOUND_MS));
  void Promise.race([ended, bound]).then(() => stop(signal));
}

function stop(signal: NodeJS.Signals): void {
  for (const s of ENDING_SIGNALS) process.removeListener(s, endAllAndStop);
  process.kill(process.pid, signal);
}

/** Has `end` run first when a signal ends the runner; answers what forgets it. */
export function endsWithRunner(end: () => unknown): () => void {
  if (enders.size === 0) for (const s of ENDING_SIGNALS) process.on(s, endAllAndStop);
  enders.add(end);
  return () => {
    enders.delete(end);
    if (enders.size === 0 && !ending)
      for (const s of ENDING_SIGNALS) process.removeListener(s, endAllAndStop);
  };
}

/** Once a signal is ending the runner, a run goes no further: this never settles, and the signal ends it. */
export const unlessEnding = (): Promise<void> => (ending ? new Promise(() => {}) : Promise.resolve());

function killGroupOf(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group has ended already.
  }
}

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
  const keep = (chunk: string) => {
    tail = (tail + chunk)
      .split('\n')
      .slice(-KEPT_LINES - 1)
      .map((line) => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line))
      .join('\n');
  };
  for (const output of [child.stdout, child.stderr]) output.setEncoding('utf8').on('data', keep);
  const killGroup = () => {
    if (child.pid) killGroupOf(child.pid);
  };
  const untrack = endsWithRunner(killGroup);
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
      untrack();
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
    // A child of the command holding its output open would keep 'close' away: the group ends with it,
    // and one that left the group (setsid, a daemon) has its output cut after a grace.
    child.once('exit', () => {
      killGroup();
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, OUTPUT_GRACE_MS).unref();
    });
    child.once('close', (code, signal) => finish(code, signal));
  });
}
