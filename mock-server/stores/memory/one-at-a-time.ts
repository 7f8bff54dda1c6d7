/**
 * Runs each task once the one before it has settled: the replacements of the whole state of one
 * process (StateStore.replacing), which stop its worker, empty or fill the tables and the data
 * folder, and start the worker again only if they stopped it.
 */
export type OneAtATime = <T>(task: () => Promise<T>) => Promise<T>;

/** A task that waited `ms` for those before it fails with `tooLong()` instead of running. */
export interface WaitBound {
  ms: number;
  tooLong: () => Error;
}

export function oneAtATime(bound?: WaitBound): OneAtATime {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const before = last;
    const run = (bound ? boundedWait(before, bound) : before).then(task);
    // One that gave up waiting never ran: the next waits for those before it still.
    last = Promise.all([before, run.catch(() => undefined)]);
    return run;
  };
}

function boundedWait(before: Promise<unknown>, { ms, tooLong }: WaitBound): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(tooLong()), ms)));
  return Promise.race([before, late]).finally(() => clearTimeout(timer));
}
