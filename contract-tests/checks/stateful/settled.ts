/**
 * The exploration's runs, so the check can wait for the last one to end. fast-check's time limit
 * (`interruptAfterTimeLimit`) stops waiting for a run, not the run: its commands go on in the
 * background, and answers that came after the check's body returned were judged while its cleanup
 * reset the organization they act on (usage read 0 where the model counted 3, an image taken past
 * the cap the reset lifted). Waiting for it judges each answer against the state it was sent in.
 */
export function runsTracked<A extends unknown[]>(run: (...args: A) => Promise<void>) {
  let last: Promise<void> = Promise.resolve();
  return {
    run: (...args: A): Promise<void> => (last = run(...args)),
    /** Resolves once the last run started has ended, however it ended (its failure is the property's). */
    settled: (): Promise<void> =>
      last.then(
        () => undefined,
        () => undefined,
      ),
  };
}
