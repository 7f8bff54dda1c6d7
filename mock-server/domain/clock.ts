/**
 * The mock's clock: real time plus an offset the control plane can move, so a partner can jump to
 * next month (and see the analysis quota reset) without waiting for it.
 */
export class MockClock {
  private offset = 0;

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
    this.offset += ms;
  }

  set(date: Date): void {
    this.offset = date.getTime() - Date.now();
  }

  reset(): void {
    this.offset = 0;
  }
}

/** Calendar month in UTC, e.g. "2026-11": the unit of the monthly analysis cap. */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function firstDayOfNextMonth(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}
