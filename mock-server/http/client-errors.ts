import type { Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { nodeHttp } from './node-http.js';

const { STATUS_CODES } = nodeHttp;

/**
 * Requests Node's HTTP parser refuses before any route sees them: a malformed request line, bytes
 * past a body's Content-Length, headers too large, a request slower than `requestTimeout`. Node's
 * own answer is a bare status; this one says what was wrong, as every other error of the mock does.
 */
export function answerClientErrors(server: Server, requestTimeoutMs: number): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, detail] = describe(err, requestTimeoutMs);
    const body = JSON.stringify({ detail });
    const answer = () =>
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
          'Content-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
    // Bytes past a body's Content-Length are parsed, and refused, while the request they followed
    // is still being answered: that answer goes out first, then this one.
    // A request still arriving when its time is up is answered 408 in place of its handler, and
    // the connection closes, which ends the handler's read. A request whose own bytes broke off
    // (the client went away mid-body) gets no answer: the socket is destroyed, as Node does.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (!inFlight || inFlight.writableFinished) answer();
    else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && !inFlight.headersSent) answer();
    else if (inFlight.req?.complete && err.code !== 'ERR_HTTP_REQUEST_TIMEOUT')
      inFlight.once('finish', () => (socket.writable ? answer() : socket.destroy()));
    else socket.destroy();
  });
}

function describe(err: NodeJS.ErrnoException, requestTimeoutMs: number): [number, string] {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        408,
        `The request did not arrive in full within ${requestTimeoutMs} ms (--request-timeout-ms); the connection is closed.`,
      ];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request headers too large.'];
    default:
      // llhttp's reason, e.g. "Invalid method encountered" for bytes sent past a body's Content-Length
      return [
        400,
        `Malformed HTTP request (${err.code ?? 'parse error'}: ${String((err as { reason?: string }).reason ?? err.message)}); bytes sent past a body's Content-Length are read as the next request.`,
      ];
  }
}
