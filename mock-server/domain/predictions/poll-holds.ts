/**
 * The control plane's "complete after N polls": a prediction's outcome, once ready, is held back
 * until its Nth poll, and published inside that poll before it answers, so that very poll answers it.
 */
export class PollHolds {
  /** Polls seen per prediction, and the waiters held until enough polls arrive. */
  private readonly polls = new Map<string, number>();
  private readonly waiters = new Map<string, { needed: number; release: () => Promise<void> }>();

  /** Whether the prediction's outcome is ready and held until enough polls have come in. */
  isHeld(id: string): boolean {
    return this.waiters.has(id);
  }

  /** Counts one poll; the Nth releases a held outcome and settles once it is published. */
  async count(id: string): Promise<void> {
    const count = (this.polls.get(id) ?? 0) + 1;
    this.polls.set(id, count);
    const waiter = this.waiters.get(id);
    if (waiter && count >= waiter.needed) {
      this.waiters.delete(id);
      await waiter.release();
    }
  }

  /** `onRelease` runs inside the Nth poll (at once if that many came already). */
  async waitFor(id: string, needed: number, signal: AbortSignal, onRelease: () => Promise<void>): Promise<void> {
    if ((this.polls.get(id) ?? 0) >= needed) return onRelease();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(id);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(id, {
        needed,
        release: async () => {
          signal.removeEventListener('abort', onAbort);
          try {
            await onRelease();
          } finally {
            resolve();
          }
        },
      });
    });
  }

  /** The prediction published: its polls no longer matter. */
  async forget(id: string): Promise<void> {
    this.polls.delete(id);
  }
}
