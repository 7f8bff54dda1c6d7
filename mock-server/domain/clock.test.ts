import { expect, it } from 'vitest';
import { MockClock } from './clock.js';
import { DomainError } from './errors.js';

it('refuses a move past what a date can hold, before saving or changing anything', async () => {
  const saved: number[] = [];
  const clock = new MockClock({ load: async () => undefined, save: async (offset) => void saved.push(offset) });
  for (const move of [
    () => clock.advance(1e20),
    () => clock.advance(Number.NaN),
    () => clock.set(new Date(Number.NaN)),
  ]) {
    await expect(move()).rejects.toThrow(DomainError);
    await expect(move()).rejects.toThrow(/from 1970 to 9999/);
  }
  expect(saved).toEqual([]);
  expect(clock.offsetMs()).toBe(0);
  await clock.advance(86_400_000);
  expect(saved).toEqual([86_400_000]);
});
