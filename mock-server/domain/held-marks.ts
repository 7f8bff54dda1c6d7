import type { SettingsTable } from './state.js';

/**
 * Marks a request holds while it works (a storage slot held by an upload still streaming in, an
 * upload being completed), kept in the state store so that every instance sharing it sees them.
 * A mark whose holder died without releasing it (an instance killed mid-request) stops counting
 * after `ttlMs` of its holder's clock; a request that takes longer renews nothing, so `ttlMs` is
 * longer than any request may run.
 */
export class HeldMarks {
  constructor(
    private readonly settings: SettingsTable,
    private readonly prefix: string,
    private readonly ttlMs = 60 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many live marks the group holds. */
  async count(group: string): Promise<number> {
    const at = this.now();
    const marks = await this.settings.withPrefix(`${this.prefix}${group}/`);
    return marks.filter((m) => Number(m.value) > at).length;
  }

  async isHeld(group: string, id: string): Promise<boolean> {
    const value = await this.settings.get(this.key(group, id));
    return value !== undefined && Number(value) > this.now();
  }

  hold(group: string, id: string): Promise<void> {
    return this.settings.set(this.key(group, id), String(this.now() + this.ttlMs));
  }

  release(group: string, id: string): Promise<void> {
    return this.settings.delete(this.key(group, id));
  }

  private key(group: string, id: string): string {
    return `${this.prefix}${group}/${id}`;
  }
}
