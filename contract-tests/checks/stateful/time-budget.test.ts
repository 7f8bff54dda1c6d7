import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timeBudget } from './time-budget.js';

/** A clock each run moves on by `runMs`, as a run on a slow target takes that long. */
function slowRuns(runMs: number, fails: (n: number) => boolean = () => false) {
  let clock = 0;
  const ended: number[] = [];
  const run = async (n: number) => {
    clock += runMs;
    await Promise.resolve();
    ended.push(n);
    if (fails(n)) throw new Error(`run ${n} failed`);
  };
  return { run, ended, now: () => clock };
}

describe("the exploration's time budget", () => {
  it('passes a check whose only run outlasted the budget, that run ended before the exploration did', async () => {
    const target = slowRuns(60_000);
    const budget = timeBudget(40, target.run, target.now);
    const result = await fc.check(fc.asyncProperty(fc.nat(), budget.run), { seed: 1, numRuns: 100 });
    expect(result.failed).toBe(false);
    expect([budget.started(), target.ended.length]).toEqual([1, 1]);
  });

  it('starts no run once the budget has passed, and every run before it', async () => {
    const target = slowRuns(10_000);
    const budget = timeBudget(40, target.run, target.now);
    await fc.check(fc.asyncProperty(fc.nat(), budget.run), { seed: 1, numRuns: 100 });
    expect([budget.started(), target.ended.length]).toEqual([4, 4]);
  });

  it('reports a failure found within the budget with its counterexample, its shrinking cut at the budget', async () => {
    const target = slowRuns(10_000, () => true);
    const budget = timeBudget(40, target.run, target.now);
    const property = fc.asyncProperty(fc.integer({ min: 500, max: 1000 }), budget.run);
    const result = await fc.check(property, { seed: 3, numRuns: 100 });
    expect(result.failed).toBe(true);
    expect(result.counterexample?.[0]).toBeGreaterThanOrEqual(500);
    // the failing run and its shrinks, none started past the 40 s
    expect(budget.started()).toBeGreaterThanOrEqual(1);
    expect(budget.started()).toBeLessThanOrEqual(4);
  });

  it('runs every run without a budget', async () => {
    const target = slowRuns(60_000);
    const budget = timeBudget(undefined, target.run, target.now);
    await fc.check(fc.asyncProperty(fc.nat(), budget.run), { seed: 1, numRuns: 20 });
    expect(target.ended).toHaveLength(20);
  });
});
