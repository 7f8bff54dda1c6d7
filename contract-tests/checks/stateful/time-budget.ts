/**
 * The exploration's time budget (CONTRACT_STATEFUL_SECONDS): no run starts once it has passed, and
 * a run that started goes to its end. A run the budget keeps from starting passes at once, so
 * fast-check soon ends its runs; a failure's shrinking past the budget keeps the shortest failing
 * sequence found within it.
 *
 * Not fast-check's `interruptAfterTimeLimit`: it races the run in flight, which, abandoned
 * mid-sequence, goes on sending requests while the check judges and cleans up; and it reports a
 * check none of whose runs ended within the budget (one run longer than the budget, on a slow
 * target) as failed with no counterexample, so STATE-01 failed with "object null is not iterable".
 */
export interface TimeBudget<A extends unknown[]> {
  /** `run`, or nothing once the budget has passed. */
  run: (...args: A) => Promise<void>;
  /** How many runs started (a failure's shrinking included). */
  started: () => number;
}

export function timeBudget<A extends unknown[]>(
  seconds: number | undefined,
  run: (...args: A) => Promise<void>,
  now: () => number = Date.now,
): TimeBudget<A> {
  const deadline = seconds === undefined ? Infinity : now() + seconds * 1000;
  let started = 0;
  return {
    run: async (...args) => {
      if (now() >= deadline) return;
      started++;
      await run(...args);
    },
    started: () => started,
  };
}
