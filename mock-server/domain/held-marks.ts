import type { HeldMarkKind, HeldMarkTable } from './state.js';

/**
 * Marks a request holds while it works (a storage slot held by an upload still streaming in, an
 * upload being completed), kept in the state store so that every instance sharing it sees them.
 * A mark lasts TTL_MS on the state store's clock (the database's, for every instance alike) and is
 * renewed while its holder works, so the mark of a holder that died (an instance killed
 * mid-request) stops counting within it; a mock that owns its store
 * alone drops every mark when it starts (`dropAll`), since no holder outlived the last process.
 */
/** A mark held: renewed from `keep()` until `release()` (which may be called more than once). */
export interface HeldMark {
  keep(): void;
  release(): Promise<void>;
}

/** How long a mark holds unrenewed. */
const TTL_MS = 60_000;

export class HeldMarks {
  constructor(
    private readonly marks: HeldMarkTable,
    private readonly kind: HeldMarkKind,
  ) {}

  /** How many live marks the group holds. */
  async count(group: string): Promise<number> {
    return this.marks.countHeld(this.kind, group);
  }

  isHeld(group: string, id: string): Promise<boolean> {
    return this.marks.isHeld(this.kind, group, id);
  }

  /**
   * Takes the mark (inside the caller's transaction: a transaction that is run again takes it
   * again). Its renewal starts with `keep()`, called once that transaction has committed.
   */
  async hold(group: string, id: string): Promise<HeldMark> {
    await this.renew(group, id);
    let timer: NodeJS.Timeout | undefined;
    let renewing: Promise<void> = Promise.resolve();
    let released = false;
    return {
      keep: () => {
        if (released || timer) return;
        timer = setInterval(() => {
          renewing = this.renew(group, id).catch(() => undefined);
        }, TTL_MS / 3);
        timer.unref();
      },
      release: async () => {
        released = true;
        clearInterval(timer);
        // A renewal under way would put the mark back after its delete.
        await renewing;
        await this.marks.release(this.kind, group, id);
      },
    };
  }

  async dropAll(): Promise<void> {
    await this.marks.clear(this.kind);
  }

  private renew(group: string, id: string): Promise<void> {
    return this.marks.hold(this.kind, group, id, TTL_MS);
  }
}
