import { DomainError } from './errors.js';

/** Where each organization's own clock offset is kept (the state database). */
export interface OrganizationOffsets {
  load(orgId: string): number | undefined;
  save(orgId: string, offsetMs: number): void;
}

// The latest time an organization's clock reads: a year short of 9999-12-31, as the control plane's.
const LATEST = Date.UTC(9999, 0, 1);

const noOffsets: OrganizationOffsets = { load: () => undefined, save: () => undefined };

/**
 * The mock's clock: real time plus an offset the control plane can move, so a partner can jump to
 * next month (and see the analysis quota reset) without waiting for it. `save` keeps a new offset
 * (in the database); the offset changes only once it was saved.
 *
 * Each organization may add its own offset on top (its test clock, moved with its own key): the
 * times of its records and its quota month follow `now(orgId)`; the mock's offset stays the
 * operator's.
 */
export class MockClock {
  private readonly organizationOffsets = new Map<string, number>();

  constructor(
    private offset = 0,
    private readonly save: (offsetMs: number) => void = () => undefined,
    private readonly organizations: OrganizationOffsets = noOffsets,
  ) {}

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

  advance(ms: number, orgId?: string): void {
    this.moveTo(this.offsetMs(orgId) + ms, orgId);
  }

  set(date: Date, orgId?: string): void {
    const base = orgId === undefined ? 0 : this.offset;
    this.moveTo(date.getTime() - Date.now() - base, orgId);
  }

  reset(orgId?: string): void {
    this.moveTo(0, orgId);
  }

  /** After the state was emptied: every organization is back on the mock's clock. */
  forgetOrganizations(): void {
    this.organizationOffsets.clear();
  }

  private organizationOffset(orgId: string): number {
    let offset = this.organizationOffsets.get(orgId);
    if (offset === undefined) {
      offset = this.organizations.load(orgId) ?? 0;
      this.organizationOffsets.set(orgId, offset);
    }
    return offset;
  }

  /** Checked before anything is saved: a clock past what a date can hold would break every request after it. */
  private moveTo(offset: number, orgId?: string): void {
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
    if (orgId === undefined) {
      this.save(offset);
      this.offset = offset;
    } else {
      this.organizations.save(orgId, offset);
      this.organizationOffsets.set(orgId, offset);
    }
  }
}

/** Calendar month in UTC, e.g. "2026-11": the unit of the monthly analysis cap. */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function firstDayOfNextMonth(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}
