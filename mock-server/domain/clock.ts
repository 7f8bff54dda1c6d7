import { DomainError } from './errors.js';

/**
 * The mock's clock: real time plus an offset the control plane can move, so a partner can jump to
 * next month (and see the analysis quota reset) without waiting for it. `save` keeps a new offset
 * (in the database); the offset changes only once it was saved.
 */
export class MockClock {
  constructor(
    private offset = 0,
    private readonly save: (offsetMs: number) => void = () => undefined,
  ) {}

  now(): Date {
    return new Date(Date.now() + this.offset);
  }

  nowIso(): string {
    return this.now().toISOString();
  }

  offsetMs(): number {
    return this.offset;
  }

  advance(ms: number): void {
    this.moveTo(this.offset + ms);
  }

  set(date: Date): void {
    this.moveTo(date.getTime() - Date.now());
  }

  reset(): void {
    this.moveTo(0);
  }

  /** Checked before anything is saved: a clock past what a date can hold would break every request after it. */
  private moveTo(offset: number): void {
    const date = new Date(Date.now() + offset);
    if (
      !Number.isFinite(offset) ||
      Number.isNaN(date.getTime()) ||
      date.getUTCFullYear() > 9999 ||
      date.getTime() < 0
    )
      throw new DomainError(
        'invalid_input',
        `The clock can move to dates from 1970 to 9999; this change would put it at ${Number.isNaN(date.getTime()) ? 'an invalid date' : date.toISOString()}.`,
      );
    this.save(offset);
    this.offset = offset;
  }
}

/** Calendar month in UTC, e.g. "2026-11": the unit of the monthly analysis cap. */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function firstDayOfNextMonth(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}
