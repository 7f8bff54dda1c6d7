/**
 * Runs each task once the one before it has settled: what replaces the whole state (a snapshot's
 * swap, a reset's reseed) stops the worker, empties or fills the tables and the data folder, and
 * starts the worker again only if it stopped it; two at once removed each other's staged folders
 * and restarted the worker in the middle of the other.
 */
export type OneAtATime = <T>(task: () => Promise<T>) => Promise<T>;

export function oneAtATime(): OneAtATime {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = last.then(task);
    last = run.catch(() => undefined);
    return run;
  };
}
