/**
 * The control plane's "complete after N polls": a prediction's outcome, once ready, is held back
 * until its Nth poll, and published synchronously inside that poll, so that very poll answers it.
 */
export class PollHolds {
  /** Polls seen per prediction, and the waiters held until enough polls arrive. */
  private readonly polls = new Map<string, number>();
  private readonly waiters = new Map<string, { needed: number; release: () => void }>();

  /** Whether the prediction's outcome is ready and held until enough polls have come in. */
  isHeld(id: string): boolean {
    return this.waiters.has(id);
  }

  /** Counts one poll; the Nth releases a held outcome. */
  count(id: string): void {
    const count = (this.polls.get(id) ?? 0) + 1;
    this.polls.set(id, count);
    const waiter = this.waiters.get(id);
    if (waiter && count >= waiter.needed) {
      this.waiters.delete(id);
      waiter.release();
    }
  }

  /** `onRelease` runs synchronously inside the Nth poll (at once if that many came already). */
  waitFor(id: string, needed: number, signal: AbortSignal, onRelease: () => void): Promise<void> {
    if ((this.polls.get(id) ?? 0) >= needed) {
      onRelease();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(id);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(id, {
        needed,
        release: () => {
          signal.removeEventListener('abort', onAbort);
          try {
            onRelease();
          } finally {
            resolve();
          }
        },
      });
    });
  }

  /** The prediction published: its polls no longer matter. */
  forget(id: string): void {
    this.polls.delete(id);
  }
}
