import { describe, expect, it } from 'vitest';
import { EXPLORATION_DEFAULT, withExplorationDefault } from './exploration-length.js';

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
