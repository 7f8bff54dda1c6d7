import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The answer while the port is open but the app is still being wired (seed, store, routes): the
 * port must open first so that port 0 resolves before any URL is built, and a request that
 * arrives in that gap must still be answered, never left waiting.
 */
export function answerNotReady(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  const body = JSON.stringify({ detail: 'The mock is starting; retry in a moment.' });
  res.writeHead(503, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Retry-After': '1',
  });
  res.end(body);
}
