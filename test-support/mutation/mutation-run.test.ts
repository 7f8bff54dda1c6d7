import { describe, expect, it } from 'vitest';
import type { Mutant } from './mutant.js';
import { aimedFiles, type Observation } from './mutation-run.js';

const observation = (checks: Record<string, string[]>): Observation => ({
  reached: new Map(),
  checks: new Map(
    Object.entries(checks).map(([file, names]) => [file, Object.fromEntries(names.map((n) => [n, []]))]),
  ),
  failing: new Map(),
  durations: {},
});

describe('aimedFiles', () => {
  const targets = [{ file: 'cheap.check.ts' }, { file: 'shares.check.ts' }, { file: 'other.check.ts' }];
  const seen = observation({
    'cheap.check.ts': ['[ISO-01] a foreign id is not found'],
    'shares.check.ts': ['[SHR-01 SHR-10] a share of a completed segmentation'],
    'other.check.ts': ['[EXP-01] every export opens'],
  });

  it('names the files holding a check of a clause of the sentence the mutant breaks', () => {
    const mutant = { id: 'm', sentences: ['post-shares.0891c8'] } as unknown as Mutant;
    expect([...aimedFiles(mutant, targets, seen)]).toEqual(['shares.check.ts']);
  });

  it('names none for a mutant that names no sentence, so it stops at its first kill as before', () => {
    const mutant = { id: 'm' } as unknown as Mutant;
    expect(aimedFiles(mutant, targets, seen).size).toBe(0);
  });
});
