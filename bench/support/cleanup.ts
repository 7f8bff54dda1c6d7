/**
 * What a bench section started, stopped in reverse order, once: at the section's end, when it
 * fails, and on Ctrl-C (SIGINT) or SIGTERM, whose default would leave the detached pieces (nginx,
 * instances, PostgreSQL, each in a process group of its own) running and their folders on disk.
 */
export class Cleanup {
  private readonly steps: Array<() => Promise<unknown>> = [];
  /** Starts under way: a signal waits for them, so that what they started is stopped too. */
  private readonly pending = new Set<Promise<unknown>>();
  private readonly controller = new AbortController();
  private running: Promise<void> | undefined;

  /** Aborted on a signal: hand it to whatever is starting, so it stops what it has started. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  /** A start under way, whose result is stopped with `stop` once it has started. */
  starting<T>(start: Promise<T>, stop: (started: T) => Promise<unknown>): Promise<T> {
    const registered = start.then((started) => {
      this.add(() => stop(started));
      return started;
    });
    const forget = (): void => void this.pending.delete(settled);
    const settled: Promise<void> = registered.then(forget, forget);
    this.pending.add(settled);
    return registered;
  }

  run(): Promise<void> {
    return (this.running ??= (async () => {
      await Promise.all([...this.pending]);
      for (const step of this.steps.splice(0).reverse()) await step().catch(() => undefined);
    })());
  }

  /**
   * Until `release()`: a SIGINT or SIGTERM aborts what is starting, runs every step, then exits
   * (130 or 143). A signal that comes again meanwhile (a terminal's Ctrl-C reaches npm and tsx too,
   * and tsx passes it on) does not cut the stopping short.
   */
  onSignals(log: (message: string) => void): { release(): void } {
    const handler = (signal: NodeJS.Signals) => {
      if (this.controller.signal.aborted) return log(`${signal}: still stopping what the section started`);
      log(`${signal}: stopping everything the section started`);
      this.controller.abort();
      void this.run().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return {
      release() {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      },
    };
  }
}
