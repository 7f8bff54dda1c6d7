/**
 * How long `npm run contract` explores (STATE-01) when its caller says nothing: runs of 40 steps,
 * the length that reaches the states several commands build up (an upload completed then deleted
 * while converting, a prediction repeated while held, a cap reached by a second key), as many as
 * 40 seconds allow and at most 100 (on the mock, 100 runs fit in about 45 s: the default there is
 * nearly `npm test`'s 100 x 40). A time budget rather than a count, so a slower target costs the
 * same wall time, fewer runs. The exploration needs the control plane: a run without it (staging
 * or production without `--enable control`) skips it and spends nothing on it.
 *
 * Any of CONTRACT_STATEFUL_RUNS, _STEPS or _SECONDS set by the caller leaves the others as the
 * check's own defaults (5 runs of 16 steps, no budget): a caller who names a length gets that one.
 */
export const EXPLORATION_DEFAULT = {
  CONTRACT_STATEFUL_RUNS: '100',
  CONTRACT_STATEFUL_STEPS: '40',
  CONTRACT_STATEFUL_SECONDS: '40',
} as const;

/** `env` with the default length of the exploration, unless the caller set one. */
export function withExplorationDefault(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const named = Object.keys(EXPLORATION_DEFAULT).some((name) => env[name] !== undefined);
  return named ? env : { ...env, ...EXPLORATION_DEFAULT };
}

/**
 * fast-check's parameters for a time budget of `seconds`: no run starts once it has passed, and the
 * run under way then is interrupted (not a failure). fast-check stops awaiting that run, whose
 * requests go on: `lastRunAwaited` is how the check waits for them.
 */
export function timeBudget(seconds: number | undefined): {
  interruptAfterTimeLimit?: number;
  markInterruptAsFailure?: false;
} {
  return seconds === undefined
    ? {}
    : { interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false };
}

/**
 * `run`, with the last call's end kept: `settled()` resolves once it has ended, however it ended. A
 * run the time budget interrupted still sends its requests, and the check's cleanup resets its
 * organization: its answers (a share gone, a segmentation not found) would be judged against a
 * world that never saw the reset, so the check waits for it before it judges and cleans up.
 */
export function lastRunAwaited<A extends unknown[]>(
  run: (...args: A) => Promise<void>,
): { run: (...args: A) => Promise<void>; settled: () => Promise<void> } {
  let underWay: Promise<void> = Promise.resolve();
  return {
    run: (...args) => {
      const running = run(...args);
      underWay = running.catch(() => undefined);
      return running;
    },
    settled: () => underWay,
  };
}
