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
