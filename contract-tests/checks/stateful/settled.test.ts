import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runsTracked } from './settled.js';

describe('the exploration runs, tracked', () => {
  it('waits for a run the time limit interrupted, which fast-check leaves going', async () => {
    let ended = 0;
    const runs = runsTracked(async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      ended++;
    });
    const result = await fc.check(
      fc.asyncProperty(fc.nat(), () => runs.run()),
      { numRuns: 5, interruptAfterTimeLimit: 30, markInterruptAsFailure: false },
    );
    expect(result.interrupted).toBe(true);
    expect(ended, 'runs ended when fast-check returned').toBe(0);
    await runs.settled();
    expect(ended, 'runs ended once settled').toBe(1);
  });

  it('settles on a run that failed, leaving its failure to the property', async () => {
    const runs = runsTracked(() => Promise.reject(new Error('finding')));
    await expect(runs.run()).rejects.toThrow('finding');
    await expect(runs.settled()).resolves.toBeUndefined();
  });
});
