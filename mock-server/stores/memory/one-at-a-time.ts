/**
 * Runs each task once the one before it has settled: the replacements of the whole state of one
 * process (StateStore.replacing), which stop its worker, empty or fill the tables and the data
 * folder, and start the worker again only if they stopped it.
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
