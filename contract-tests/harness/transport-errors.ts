import { ExchangeError } from './bounded-fetch.js';

/**
 * Says in words why a request got no answer, from the error Node's fetch (undici) throws: the
 * message alone is "fetch failed", and the reason is in its `cause`.
 */
export function describeTransportError(error: unknown): string {
  if (error instanceof ExchangeError) return error.message;
  const cause = ((error as { cause?: unknown }).cause ?? error) as { code?: string; message?: string };
  const code = cause.code ?? '';
  const detail = code ? `${code}: ${cause.message ?? ''}` : (cause.message ?? String(error));
  if (code === 'EPIPE' || code === 'ECONNRESET')
    return (
      `the target closed the connection while the request was still being sent (${detail}). ` +
      'A server that refuses a body must still let the client read its answer: read the rest of the ' +
      'body first, or close gracefully (RFC 9112 §9.6)'
    );
  if (code === 'ECONNREFUSED') return `nothing accepts connections at this address (${detail})`;
  if (code === 'UND_ERR_SOCKET') return `the target closed the connection without an answer (${detail})`;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return `the target stopped answering (${detail})`;
  return `the request failed before an answer (${detail})`;
}
