import { LATEST, monthOf, type MockClock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';

export interface ClockReading {
  now: Date;
  offsetMs: number;
  /** The calendar month the analysis quota counts in, e.g. "2026-11". */
  month: string;
}

export interface ClockChange {
  advanceMs?: number;
  /** An ISO date-time, as the control plane received it. */
  now?: string;
  reset?: boolean;
}

/** Reads and moves the mock's clock for the control plane (`GET`/`POST /__mock/clock`). */
export class ClockControl {
  constructor(private readonly clock: MockClock) {}

  /** The mock's clock, or (with an organization) that organization's own test clock. */
  async read(orgId?: string): Promise<ClockReading> {
    await this.clock.refresh(orgId);
    const now = this.clock.now(orgId);
    return { now, offsetMs: Math.round(this.clock.offsetMs(orgId)), month: monthOf(now) };
  }

  /**
   * Everything is checked before anything changes: a clock past year 9999 cannot be rendered as a
   * date-time, and every later request that reads it would fail.
   */
  async change(change: ClockChange, orgId?: string): Promise<ClockReading> {
    await this.clock.alone(orgId, async () => {
      await this.clock.refresh(orgId);
      const afterReset = orgId === undefined ? Date.now() : this.clock.now().getTime();
      const problem = clockProblem(change, change.reset ? afterReset : this.clock.now(orgId).getTime());
      if (problem) throw new DomainError('invalid_input', problem);
      if (change.reset) await this.clock.reset(orgId);
      if (change.now) await this.clock.set(new Date(change.now), orgId);
      if (change.advanceMs) await this.clock.advance(change.advanceMs, orgId);
    });
    return this.read(orgId);
  }
}

function clockProblem(change: ClockChange, current: number): string | undefined {
  const start = change.now === undefined ? current : Date.parse(change.now);
  if (!(start >= 0 && start <= LATEST))
    return `now: '${change.now}' is outside 1970-01-01T00:00:00Z .. 9999-01-01T00:00:00Z`;
  const target = start + (change.advanceMs ?? 0);
  if (!(target <= LATEST))
    return `advance_ms: ${change.advanceMs} would move the clock past 9999-01-01T00:00:00Z (it reads ${new Date(start).toISOString()})`;
  return undefined;
}
