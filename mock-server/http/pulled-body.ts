import type { IncomingMessage } from 'node:http';

/** A request body read one chunk at a time, on demand, that can be let go of part-way. */
export interface PulledBody extends AsyncIterable<Uint8Array> {
  /**
   * Stops pulling: the request is left paused with no listener of ours, so the caller can read
   * and drop the rest (discard-rest.ts) before answering.
   */
  release(): void;
}

/**
 * The body of a request as chunks pulled when the reader wants them: the request is paused
 * between pulls, so a slow reader slows the sender. Unlike the stream's own async iterator, letting
 * go of it neither destroys the request (its client would never read the answer) nor leaves it
 * stuck in paused mode for whoever reads the rest.
 */
export function pulledBody(req: IncomingMessage): PulledBody {
  const queue: Buffer[] = [];
  // A body already read to its end (by whoever came first) has nothing left to pull.
  let ended = req.readableEnded;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const onData = (chunk: Buffer) => {
    queue.push(chunk);
    req.pause();
    wake?.();
  };
  const onEnd = () => {
    ended = true;
    wake?.();
  };
  const onError = (error: unknown) => {
    failure = error;
    wake?.();
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.pause();
  return {
    release() {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    },
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          while (queue.length === 0 && !ended && failure === undefined) {
            const arrived = new Promise<void>((resolve) => (wake = resolve));
            req.resume();
            await arrived;
            wake = undefined;
          }
          if (queue.length > 0) return { value: queue.shift()!, done: false };
          if (failure !== undefined) throw failure;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
