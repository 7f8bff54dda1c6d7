import { describe, expect, it } from 'vitest';
import { interleavedOrder } from './durability.js';

describe('interleavedOrder', () => {
  it('alternates which folder goes first, so neither is always measured first', () => {
    const firsts = [0, 1, 2, 3].map((round) => interleavedOrder(round)[0]);
    expect(firsts).toEqual(['small', 'large', 'small', 'large']);
    expect(new Set(interleavedOrder(1))).toEqual(new Set(['small', 'large']));
  });
});
