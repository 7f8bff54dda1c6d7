import { DomainError } from './errors.js';

/** Where the offsets are kept (the state store): the mock's (no organization) and each organization's own. */
export interface ClockOffsets {
  load(orgId?: string): Promise<number | undefined>;
  save(offsetMs: number, orgId?: string): Promise<void>;
  /** Runs `work` (a load, then a save) with no other move of this clock in between, on any instance. */
  alone?<T>(orgId: string | undefined, work: () => Promise<T>): Promise<T>;
}

// The latest time a clock reads: a year short of 9999-12-31, since the mock clock keeps moving with
// real time after it is set, and a date past year 9999 has no date-time form.
export const LATEST = Date.UTC(9999, 0, 1);

const noOffsets: ClockOffsets = { load: async () => undefined, save: async () => undefined };

/**
 * The mock's clock: real time plus an offset the control plane can move, so a partner can jump to
 * next month (and see the analysis quota reset) without waiting for it. A new offset is saved (in
 * the state store) before it is used.
 *
 * Instances sharing one store share one clock: `refresh(orgId)` reads the offsets again, and each
 * request (http/stages/clock-refresh.ts) and each stage of a background job calls it before it reads
 * the time, so a clock moved through any instance holds for every request that begins after the
 * move was acknowledged. `now()` itself answers from what the last refresh read.
 *
 * Each organization may add its own offset on top (its test clock, moved with its own key): the
 * times of its records and its quota month follow `now(orgId)`; the mock's offset stays the
 * operator's.
 */
export class MockClock {
  private readonly organizationOffsets = new Map<string, number>();

  private offset = 0;

  constructor(private readonly offsets: ClockOffsets = noOffsets) {}

  /** Reads the mock's offset (and the organization's own) from the store again, or from a request's view of it. */
  async refresh(orgId?: string, from: Pick<ClockOffsets, 'load'> = this.offsets): Promise<void> {
    this.offset = (await from.load()) ?? 0;
    if (orgId !== undefined) this.organizationOffsets.set(orgId, (await from.load(orgId)) ?? 0);
  }

  /** The mock's time, or (with an organization) that organization's own. */
  now(orgId?: string): Date {
    if (orgId === undefined) return new Date(Date.now() + this.offset);
    // Each offset was checked alone; the operator may move the mock's clock after an organization
    // moved its own, so the sum is kept to the dates a date-time can render.
    const time = Date.now() + this.offset + this.organizationOffset(orgId);
    return new Date(Math.min(Math.max(time, 0), LATEST));
  }

  nowIso(orgId?: string): string {
    return this.now(orgId).toISOString();
  }

  /** The mock's offset, or an organization's own (on top of the mock's). */
  offsetMs(orgId?: string): number {
    return orgId === undefined ? this.offset : this.organizationOffset(orgId);
  }

  /**
   * Runs `work`, which reads the offset (`refresh`) and moves it, with no other move of this clock in
   * between on any instance: two advances at once each read the offset before the other's move, and
   * the later write undid the other.
   */
  alone<T>(orgId: string | undefined, work: () => Promise<T>): Promise<T> {
    return this.offsets.alone ? this.offsets.alone(orgId, work) : work();
  }

  advance(ms: number, orgId?: string): Promise<void> {
    return this.moveTo(this.offsetMs(orgId) + ms, orgId);
  }

  set(date: Date, orgId?: string): Promise<void> {
    const base = orgId === undefined ? 0 : this.offset;
    return this.moveTo(date.getTime() - Date.now() - base, orgId);
  }

  reset(orgId?: string): Promise<void> {
    return this.moveTo(0, orgId);
  }

  /** After the state was emptied: every organization is back on the mock's clock. */
  forgetOrganizations(): void {
    this.organizationOffsets.clear();
  }

  private organizationOffset(orgId: string): number {
    return this.organizationOffsets.get(orgId) ?? 0;
  }

  /** Checked before anything is saved: a clock past what a date can hold would break every request after it. */
  private async moveTo(offset: number, orgId?: string): Promise<void> {
    const total = orgId === undefined ? offset : this.offset + offset;
    const date = new Date(Date.now() + total);
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
    await this.offsets.save(offset, orgId);
    if (orgId === undefined) this.offset = offset;
    else this.organizationOffsets.set(orgId, offset);
  }
}

/** Calendar month in UTC, e.g. "2026-11": the unit of the monthly analysis cap. */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function firstDayOfNextMonth(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}
