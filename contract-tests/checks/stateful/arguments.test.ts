import { describe, expect, it } from 'vitest';
import { idOf, nearOf } from './arguments.js';

const REAL = '078e62ee-4b5a-4a1e-8322-01910425db58';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("an id near a real one (nobody's)", () => {
  it("shares the real id's first block, or all of it but the last digit, and is never the real id", () => {
    for (let seed = 0; seed < 20; seed++) {
      const near = nearOf(REAL, seed);
      expect(near, `seed ${seed}`).toMatch(UUID);
      expect(near).not.toBe(REAL);
      expect(near.slice(0, 8)).toBe(REAL.slice(0, 8));
      if (seed % 2) expect(near.slice(0, -1)).toBe(REAL.slice(0, -1));
    }
    // a real id whose tail the seed would write again: its last digit changed instead
    const same = '12345678-0000-4000-8000-000000000004';
    expect(nearOf(same, 4)).toBe('12345678-0000-4000-8000-000000000000');
  });

  it('is the class near of the exploration, on any kind of id, with or without one of the caller', () => {
    expect(idOf('near', REAL.toUpperCase(), undefined, 3)).toBe(`${REAL.slice(0, -1)}0`);
    expect(idOf('near', undefined, undefined, 2)).toMatch(UUID);
  });
});
