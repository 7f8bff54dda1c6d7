import { setTimeout as wait } from 'node:timers/promises';
import { DomainError } from './errors.js';

/**
 * Commits work that finished in the background (a conversion, a prediction's result). A client is
 * not waiting for it, so a full disk is no reason to fail it: the commit is tried again every
 * second until it goes through, or until `signal` aborts (the mock is stopping; the row stays
 * as it was and the work is redone after the restart). Answers undefined when aborted.
 */
export async function commitWhenSpace<T>(
  commit: () => T | Promise<T>,
  signal: AbortSignal,
): Promise<T | undefined> {
  for (;;) {
    try {
      return await commit();
    } catch (err) {
      if (!(err instanceof DomainError && err.kind === 'storage_full')) throw err;
    }
    await wait(1000, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return undefined;
  }
}
