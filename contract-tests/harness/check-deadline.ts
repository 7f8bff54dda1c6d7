/** Time kept back from a check's timeout for its cleanup. */
export const CLEANUP_RESERVE_MS = 20_000;

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
