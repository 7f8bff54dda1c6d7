import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * Requests that arrive in one turn of the event loop are handled together, in arrival order, once
 * node has read every connection that was ready (setImmediate runs after the loop's poll phase).
 *
 * Why: each answer written to a client that is asleep must wake it, and on this machine (a virtual
 * one, where waking another core is an exit to the host) that wake-up was a large part of a small
 * GET's cost. Handled one at a time, each request's answer went out alone while the next request
 * was still being parsed, so the client slept and woke once per answer. Handled together, their
 * answers go out within microseconds of each other and the client wakes once for all of them:
 * GET /models went from about 14,000-20,000 to 24,000-28,000 req/s under 10 connections, with less
 * CPU a request in user and in system time alike (docs/benchmarks.md). A request waits
 * for the connections read in the same turn, microseconds; a request alone is handled on the turn
 * it arrived in.
 */
export function handledInLoopTurns(
  listener: RequestListener,
  /** Told of an exception the listener let escape (it answers its own failures: none should). */
  onEscape: (err: unknown) => void,
): RequestListener {
  let waiting: Array<[IncomingMessage, ServerResponse]> = [];
  const handleWaiting = (): void => {
    const turn = waiting;
    waiting = [];
    for (const [req, res] of turn) {
      try {
        listener(req, res);
      } catch (err) {
        // The listener answers its own failures (request-pipeline.ts); one that escapes it must
        // not leave the requests after it unanswered, nor pass unseen.
        onEscape(err);
        res.destroy();
      }
    }
  };
  return (req, res) => {
    if (waiting.push([req, res]) === 1) setImmediate(handleWaiting);
  };
}
