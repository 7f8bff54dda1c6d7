import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder of this run where checks in every worker say they are running (check-gate.ts). */
    checkGateDir: string;
  }
}

/** The run's gate folder, as the suite's setup or a runner of cases provides it. */
function runGate(): string | undefined {
  try {
    return inject('checkGateDir');
  } catch {
    return undefined; // not inside a vitest run
  }
}

const POLL_MS = 20;
/** How long a lone check waits for the running checks to end. */
const ALONE_WAIT_MS = 60_000;

/** The running checks did not end in time: the lone check did not run. */
export class GateTimeout extends Error {
  constructor(readonly running: number) {
    super(`${running} other checks were still running after ${ALONE_WAIT_MS / 1000} s`);
  }
}
const pause = () => new Promise((resolve) => setTimeout(resolve, POLL_MS));
let made = 0;

/**
 * Lets a check that moves something every check shares (the mock's clock) run alone: it waits
 * until the checks running in every worker have ended, and no check starts until it has ended.
 * The workers are processes of their own, so the gate is a folder of the run: each running check
 * is a file under `running/`, and the lone check holds the folder `alone` (mkdir: one holder).
 * A check registers before it looks for `alone`, and the lone check takes `alone` before it
 * counts the running ones, so neither can miss the other. Without the folder (the suite started
 * some other way) every check runs as it comes.
 */
export async function enterGate(alone: boolean, dir = runGate()): Promise<() => void> {
  if (!dir || !existsSync(dir)) return () => undefined;
  const running = path.join(dir, 'running');
  const lone = path.join(dir, 'alone');
  mkdirSync(running, { recursive: true });
  if (alone) {
    for (;;) {
      try {
        mkdirSync(lone);
        break;
      } catch {
        await pause();
      }
    }
    // A check that hangs must not hold every other one: past the wait, the lone check gives up.
    const deadline = Date.now() + ALONE_WAIT_MS;
    while (readdirSync(running).length > 0) {
      if (Date.now() > deadline) {
        rmdirSync(lone);
        throw new GateTimeout(readdirSync(running).length);
      }
      await pause();
    }
    return () => rmdirSync(lone);
  }
  const mine = path.join(running, `${process.pid}-${++made}`);
  for (;;) {
    writeFileSync(mine, '');
    if (!existsSync(lone)) return () => rmSync(mine, { force: true });
    rmSync(mine, { force: true });
    while (existsSync(lone)) await pause();
  }
}
