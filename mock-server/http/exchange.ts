import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';

/**
 * What the mock records about a request while it is answered, for its log line and journal entry.
 * A class, so that every request's record has the same shape from its first line.
 */
export class ExchangeLocals {
  requestId = '';
  operationId: string | undefined = undefined;
  pathTemplate: string | undefined = undefined;
  organizationId: string | undefined = undefined;
  requestBody: unknown = undefined;
  responseBody: unknown = undefined;
  /** The bodies' JSON text as read and as sent, in characters: the journal cuts a long one. */
  requestBodyLength = 0;
  responseBodyLength = 0;
  fault: string | undefined = undefined;
}

/** A request as the handlers read it: node's own message, with its URL split once. */
export interface ApiRequest extends IncomingMessage {
  /** The URL's path, still percent-encoded, without its query. */
  path: string;
  /** The query string as node:querystring parses it: a repeated name gives an array. */
  query: ParsedUrlQuery;
  /** The decoded path parameters of the route that took the request. */
  params: Record<string, string>;
}

/** A response with the few conveniences the handlers use; everything else is node's own. */
export interface ApiResponse extends ServerResponse {
  locals: ExchangeLocals;
  status(code: number): this;
  /** Content-Type: a full media type, or `html` / `png`. */
  type(type: string): this;
  /** Adds a request header the answer depends on to `Vary`, once. */
  vary(field: string): this;
  /** The body as JSON (kept in `locals.responseBody` for the journal), with its length. */
  json(body: unknown): void;
  /** A string (UTF-8, text/html unless typed) or bytes, with its length. */
  send(body: string | Buffer): void;
}

/**
 * Gives node's request and response what the handlers use, as own properties holding shared
 * functions: no prototype is swapped (that deoptimizes every later access to the objects), and
 * little is allocated per request: the parsed URL, the params and the locals.
 */
export function equipExchange(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): { req: ApiRequest; res: ApiResponse } {
  const req = incoming as ApiRequest;
  const url = req.url ?? '/';
  const fragmentAt = url.indexOf('#');
  const end = fragmentAt === -1 ? url.length : fragmentAt;
  const queryAt = url.indexOf('?');
  // A '?' after a '#' is the fragment's, and a fragment is never the server's.
  const hasQuery = queryAt !== -1 && queryAt < end;
  req.path = pathOf(url.slice(0, hasQuery ? queryAt : end));
  req.query = parseQuery(hasQuery ? url.slice(queryAt + 1, end) : '');
  req.params = {};
  const res = outgoing as ApiResponse;
  res.locals = new ExchangeLocals();
  res.status = status;
  res.type = type;
  res.vary = vary;
  res.json = json;
  res.send = send;
  return { req, res };
}

/** The path of an origin-form target as is; of an absolute-form one (`http://host/p`), its path part. */
function pathOf(target: string): string {
  if (target.startsWith('/')) return target;
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/.exec(target);
  if (!authority) return target;
  return target.slice(authority[0].length) || '/';
}

const SHORT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  png: 'image/png',
};
const JSON_TYPE = 'application/json; charset=utf-8';

function status(this: ApiResponse, code: number): ApiResponse {
  this.statusCode = code;
  return this;
}

function type(this: ApiResponse, mediaType: string): ApiResponse {
  this.setHeader(
    'Content-Type',
    mediaType.includes('/') ? mediaType : (SHORT_TYPES[mediaType] ?? 'application/octet-stream'),
  );
  return this;
}

function vary(this: ApiResponse, field: string): ApiResponse {
  const current = this.getHeader('Vary');
  const text = Array.isArray(current) ? current.join(', ') : current === undefined ? '' : String(current);
  const listed = text.split(',').map((f) => f.trim().toLowerCase());
  if (!listed.includes('*') && !listed.includes(field.toLowerCase()))
    this.setHeader('Vary', text ? `${text}, ${field}` : field);
  return this;
}

function json(this: ApiResponse, body: unknown): void {
  this.locals.responseBody = body;
  const current = this.getHeader('Content-Type');
  this.setHeader('Content-Type', typeof current === 'string' ? withUtf8(current) : JSON_TYPE);
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) return void this.end();
  this.locals.responseBodyLength = text.length;
  finish(this, text);
}

function send(this: ApiResponse, body: string | Buffer): void {
  const current = this.getHeader('Content-Type');
  if (typeof body === 'string')
    this.setHeader('Content-Type', typeof current === 'string' ? withUtf8(current) : SHORT_TYPES.html);
  else if (current === undefined) this.setHeader('Content-Type', 'application/octet-stream');
  finish(this, body);
}

/** A body with its length; none on the statuses that carry none (RFC 9110 15.3.5, 15.4.5). */
function finish(res: ApiResponse, body: string | Buffer): void {
  if (res.statusCode === 204 || res.statusCode === 304) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.end();
    return;
  }
  if (!res.hasHeader('Transfer-Encoding'))
    res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  // Node writes no body for HEAD by itself; the headers say what GET would send.
  res.end(body);
}

/** Text always goes out as UTF-8: say so, replacing any other charset the type named. */
function withUtf8(mediaType: string): string {
  if (/;\s*charset=utf-8\s*$/i.test(mediaType)) return mediaType;
  return `${mediaType.replace(/;\s*charset=[^;]*/i, '')}; charset=utf-8`;
}
