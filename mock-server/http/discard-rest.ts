import type { IncomingMessage, ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';

export interface DiscardLimits {
  /** Most bytes of a refused body read and dropped before the connection is given up. */
  maxBytes: number;
  /** Longest the rest of a refused body is waited for. */
  maxMs: number;
  /** Aborted when the server begins a graceful stop: a discard then gives up at once. */
  stop?: AbortSignal;
}

export const DEFAULT_DISCARD_LIMITS: DiscardLimits = { maxBytes: 8 * 1024 * 1024, maxMs: 10_000 };

/**
 * Answers a request whose body was refused unread (too large, wrong type, wrong method) only after
 * reading and dropping the rest of it, within `limits`.
 *
 * Why not answer at once: Node closes the socket as soon as an answer with `Connection: close` is
 * written, and a client still writing its body then fails with EPIPE or a reset before it reads
 * the answer. Clients that read only once the body is sent (undici's fetch, most SDKs) lost the
 * 413 that way about one time in three for a 2 MB body. Read to its end, the body leaves the
 * connection clean and reusable. Past the limits the answer goes out with `Connection: close`
 * and the socket is closed: a client cannot hold a connection, nor a graceful stop, with a body.
 */
export async function answerAfterDiscardingRest(
  req: IncomingMessage,
  res: ServerResponse,
  limits: DiscardLimits,
  answer: () => void,
): Promise<void> {
  const readToEnd = await discardRest(req, limits);
  if (res.headersSent || res.destroyed) return;
  if (!readToEnd) res.setHeader('Connection', 'close');
  answer();
}

/** Reads and drops what is left of the body; true once it ended, false when given up. */
function discardRest(req: IncomingMessage, limits: DiscardLimits): Promise<boolean> {
  // a late error of a connection already answered must not become an uncaught exception
  req.on('error', () => undefined);
  // Even given up, the body flows until the socket closes: a socket closed with unread bytes sends
  // a reset instead of a FIN, and a reset can destroy the answer before the client reads it.
  req.resume();
  if (req.complete || req.readableEnded) return Promise.resolve(true);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limits.maxBytes || req.socket.destroyed || limits.stop?.aborted)
    return Promise.resolve(false);
  const tooMuch = new AbortController();
  let dropped = 0;
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limits.maxBytes) tooMuch.abort();
  };
  req.on('data', onData);
  const signals = [tooMuch.signal, AbortSignal.timeout(limits.maxMs), ...(limits.stop ? [limits.stop] : [])];
  // Ends true at the body's end; false when it closes first, or on too many bytes, time or a stop.
  return finished(req, { signal: AbortSignal.any(signals) })
    .then(
      () => true,
      () => false,
    )
    .finally(() => req.off('data', onData));
}
