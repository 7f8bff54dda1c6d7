import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * While the port is open but the app is still being wired (modules, seed, store, routes), a request
 * waits for the app and is then answered by it: a client polling for the mock sees its first
 * answer as soon as there is one, never a refusal it must retry. The port opens first so that
 * port 0 resolves before any URL is built.
 */
export function waitUntilReady(readiness: Promise<RequestListener>): RequestListener {
  return (req, res) => {
    void readiness.then((app) => app(req, res));
  };
}

/** The answer when wiring failed (the server is closing): a client is told, never left waiting. */
export function answerNotReady(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  const body = JSON.stringify({ detail: 'The mock could not start; see its log.' });
  res.writeHead(503, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Retry-After': '1',
    Connection: 'close',
  });
  res.end(body);
}
