/** Runs tasks on the same key one after another (an upload's part records, its complete, its abort). */
export class KeyedLock {
  private readonly locks = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task on `key` has settled. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    }
  }
}
