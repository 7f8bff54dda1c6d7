import type { CheckRecord } from './api-client.js';
import { leftLines, type Cleanup } from './cleanup.js';

/** Time kept back from a check's timeout for its cleanup. */
export const CLEANUP_RESERVE_MS = 20_000;

/** The poll timeout a check's own timeout allows for: the mock profile's. */
const POLL_TIMEOUT_ALLOWED_MS = 30_000;

/**
 * A check's timeout: its own (120 s unless it says) holds a poll of the mock's 30 s, its other work
 * and the cleanup reserve; a longer poll timeout (300 s on staging and production) lengthens it by
 * the difference, so a prediction that takes as long as the poll timeout allows is not cut.
 */
export function checkTimeoutMs(own: number | undefined, pollTimeoutMs: number): number {
  return (own ?? 120_000) + Math.max(0, pollTimeoutMs - POLL_TIMEOUT_ALLOWED_MS);
}

/**
 * The check's body, cut at `ms`: a body still waiting then (a poll of a target that never finishes,
 * longer than the check's timeout) fails with the time, and the check's cleanup still runs before
 * the test runner's own timeout, which would stop the check with its cleanup undone.
 */
export async function bodyWithin(body: Promise<void>, ms: number, cut?: AbortController): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      // the body keeps running: its next request is not sent (CheckRecord.cut)
      cut?.abort();
      reject(
        new Error(
          `the check did not end within ${ms} ms (its timeout less ${CLEANUP_RESERVE_MS} ms kept for its cleanup) and was cut there`,
        ),
      );
    }, ms);
  });
  try {
    await Promise.race([body, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The wait, after a check was cut and judged, for what its body still created and the cleanup
 * undid at once: its request in flight at the cut ends within the request timeout, the undos
 * after it. What those answers and undos met (from the call on) is thrown, so it fails the check
 * it belongs to instead of reaching the target unheard during another check.
 */
export function lateUndos(
  running: Promise<void>,
  cleanup: Cleanup,
  record: CheckRecord,
  requestTimeoutMs: number,
): () => Promise<void> {
  const [violations, left] = [record.violations.length, cleanup.left.length];
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise((resolve) => (timer = setTimeout(resolve, requestTimeoutMs)));
    await Promise.race([running.catch(() => undefined), waited]);
    clearTimeout(timer);
    await cleanup.settled();
    const found = [...record.violations.slice(violations), ...leftLines(cleanup.left.slice(left))];
    if (found.length)
      throw new Error(
        `after the check was judged, what its cut body still created, and its undo:\n- ${found.join('\n- ')}`,
      );
  };
}
