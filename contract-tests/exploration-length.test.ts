import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EXPLORATION_DEFAULT,
  lastRunAwaited,
  timeBudget,
  withExplorationDefault,
} from './exploration-length.js';

describe("the exploration's length under npm run contract", () => {
  it('is runs of 40 steps within a time budget when the caller names no length', () => {
    expect(withExplorationDefault({ PATH: '/bin' })).toEqual({ PATH: '/bin', ...EXPLORATION_DEFAULT });
  });

  it("is the caller's when it names any of runs, steps or seconds", () => {
    for (const named of [
      { CONTRACT_STATEFUL_RUNS: '5' },
      { CONTRACT_STATEFUL_STEPS: '16' },
      { CONTRACT_STATEFUL_SECONDS: '10' },
    ])
      expect(withExplorationDefault(named)).toEqual(named);
  });
});

describe("the exploration's time budget", () => {
  it('interrupts the run under way, whose end the check then waits for (its cleanup resets the organization)', async () => {
    const ended: number[] = [];
    let started = 0;
    const runs = lastRunAwaited(async () => {
      const run = ++started;
      await new Promise((resolve) => setTimeout(resolve, 20));
      ended.push(run);
    });
    const result = await fc.check(
      fc.asyncProperty(fc.nat(), () => runs.run()),
      { numRuns: 1000, ...timeBudget(0.2) },
    );
    expect(result.interrupted).toBe(true);
    // fast-check no longer awaits the interrupted run: it is still under way
    expect(ended.length).toBe(started - 1);
    await runs.settled();
    expect(ended).toEqual(Array.from({ length: started }, (_, i) => i + 1));
  });

  it('is none without a number of seconds', () => {
    expect(timeBudget(undefined)).toEqual({});
  });
});
