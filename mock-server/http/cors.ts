import { ConfigError } from '../config.js';
import type { RequestStage } from './request-pipeline.js';
import type { RouteTable } from './route-table.js';

/** `*` (any origin) or the exact origins allowed; an empty list allows none. */
export type CorsOrigins = '*' | ReadonlySet<string>;

/**
 * Response headers a browser script may read from another origin: the part ETag (the resumable
 * flow completes with it), the export's file name, the request id, and what a 401, 405 or 503
 * says in its headers.
 */
const EXPOSED = [
  'ETag',
  'Content-Disposition',
  'X-Request-Id',
  'Retry-After',
  'WWW-Authenticate',
  'Allow',
  'x-amz-request-id',
].join(', ');
const PREFLIGHT_MAX_AGE_S = 600;

/** `--cors-origins`: `*`, or a comma list of origins such as `http://localhost:5173`. */
export function parseCorsOrigins(text: string): CorsOrigins {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.includes('*')) {
    if (entries.length > 1)
      throw new ConfigError(`--cors-origins: '*' cannot be mixed with origins ('${text}')`);
    return '*';
  }
  const origins = new Set<string>();
  for (const entry of entries) {
    const url = URL.parse(entry);
    // An origin is scheme://host[:port] and nothing more: a path would never match a browser's Origin.
    if (!url || !/^https?:$/.test(url.protocol) || url.href !== `${url.origin}/`)
      throw new ConfigError(
        `--cors-origins: '${entry}' is not an origin (scheme://host[:port], e.g. http://localhost:5173)`,
      );
    origins.add(url.origin);
  }
  return origins;
}

/**
 * CORS for every route of the table, in front of everything else so that errors (401, 404, 405,
 * 422) are readable by the calling page too. A preflight is answered here with the methods and
 * request headers of its path; a disallowed origin gets no CORS headers, so the browser refuses,
 * and its preflight a 403 that says why (for whoever looks at it with curl).
 */
export function cors(origins: CorsOrigins, routes: RouteTable): RequestStage {
  return function corsHeaders(req, res) {
    const origin = req.headers.origin;
    if (origins !== '*') res.vary('Origin');
    // With `*` the headers go on every answer (curl shows them too); with a list only to a listed Origin.
    const allowed = origins === '*' || (origin !== undefined && origins.has(origin));
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', origins === '*' ? '*' : (origin as string));
      res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    }
    const preflight =
      req.method === 'OPTIONS' &&
      origin !== undefined &&
      req.headers['access-control-request-method'] !== undefined;
    const route = preflight ? routes.lookup(req.path) : undefined;
    if (!route) return false;

    req.resume();
    if (!allowed) {
      res.status(403).json({
        detail: `Origin '${origin}' is not allowed to call this mock; allow it with --cors-origins (CORS_ORIGINS)`,
      });
      return true;
    }
    res.vary('Access-Control-Request-Method');
    res.vary('Access-Control-Request-Headers');
    res.setHeader('Access-Control-Allow-Methods', route.methods.join(', '));
    res.setHeader('Access-Control-Allow-Headers', route.headers.join(', '));
    res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
    // Chrome asks before a page on a public address calls a private one (Private Network Access).
    if (req.headers['access-control-request-private-network'] === 'true')
      res.setHeader('Access-Control-Allow-Private-Network', 'true');
    res.status(200).setHeader('Content-Length', '0');
    res.end();
    return true;
  };
}
