import type { SettingsTable } from './state.js';

/**
 * Marks a request holds while it works (a storage slot held by an upload still streaming in, an
 * upload being completed), kept in the state store so that every instance sharing it sees them.
 * A mark lasts `ttlMs` and is renewed while its holder works, so the mark of a holder that died
 * (an instance killed mid-request) stops counting within `ttlMs`; a mock that owns its store
 * alone drops every mark when it starts (`dropAll`), since no holder outlived the last process.
 */
/** A mark held: renewed from `keep()` until `release()` (which may be called more than once). */
export interface HeldMark {
  keep(): void;
  release(): Promise<void>;
}

export class HeldMarks {
  constructor(
    private readonly settings: SettingsTable,
    private readonly prefix: string,
    private readonly ttlMs = 60_000,
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

  /**
   * Takes the mark (inside the caller's transaction: a transaction that is run again takes it
   * again). Its renewal starts with `keep()`, called once that transaction has committed.
   */
  async hold(group: string, id: string): Promise<HeldMark> {
    const key = this.key(group, id);
    await this.renew(key);
    let timer: NodeJS.Timeout | undefined;
    let renewing: Promise<void> = Promise.resolve();
    let released = false;
    return {
      keep: () => {
        if (released || timer) return;
        timer = setInterval(() => {
          renewing = this.renew(key).catch(() => undefined);
        }, this.ttlMs / 3);
        timer.unref();
      },
      release: async () => {
        released = true;
        clearInterval(timer);
        // A renewal under way would put the mark back after its delete.
        await renewing;
        await this.settings.delete(key);
      },
    };
  }

  async dropAll(): Promise<void> {
    await this.settings.deleteWithPrefix(this.prefix);
  }

  private renew(key: string): Promise<void> {
    return this.settings.set(key, String(this.now() + this.ttlMs));
  }

  private key(group: string, id: string): string {
    return `${this.prefix}${group}/${id}`;
  }
}
