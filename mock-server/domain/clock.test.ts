import { expect, it } from 'vitest';
import { MockClock } from './clock.js';
import { DomainError } from './errors.js';

it('refuses a move past what a date can hold, before saving or changing anything', () => {
  const saved: number[] = [];
  const clock = new MockClock(0, (offset) => saved.push(offset));
  for (const move of [
    () => clock.advance(1e20),
    () => clock.advance(Number.NaN),
    () => clock.set(new Date(Number.NaN)),
  ]) {
    expect(move).toThrow(DomainError);
    expect(move).toThrow(/from 1970 to 9999/);
  }
  expect(saved).toEqual([]);
  expect(clock.offsetMs()).toBe(0);
  clock.advance(86_400_000);
  expect(saved).toEqual([86_400_000]);
});
