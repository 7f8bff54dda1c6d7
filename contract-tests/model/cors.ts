import type { Exchange, Finding } from './exchange.js';
import type { World } from './world.js';

/**
 * CORS (openapi.yaml, x-http-conventions.cors, assumed): every route, the presigned part URLs and
 * the share pages included, lets the calling page read the headers a client acts on: the part
 * ETag the resumable flow completes with, an export's file name, the request id, and what a 401,
 * 405, 429 or 503 says in its headers. Judged only where a browser would read them: a request
 * that carried an Origin, answered with that origin allowed (which origins a target allows is its
 * own configuration, so one it does not allow is left alone).
 */
const SENTENCE =
  'Every route answers CORS: /api/v1, the presigned part URLs, the /share pages … ETag, Content-Disposition, X-Request-Id, Retry-After, WWW-Authenticate and Allow are exposed to the calling page (document, x-http-conventions.cors, assumed)';
const PREFLIGHT =
  'Every route answers CORS … A preflight is answered with the methods of its path and the request headers its operations read (Authorization, Content-Type, X-Request-Id) (document, x-http-conventions.cors, assumed); a preflight carries no credential (Fetch), and a browser calls only after one answered with an ok status (2xx)';

const EXPOSED = ['ETag', 'Content-Disposition', 'X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'Allow'];
/** The request headers the document's operations read: a preflight may ask for any of them. */
const READ_HEADERS = ['authorization', 'content-type', 'x-request-id'];
/** Methods a browser never needs in Access-Control-Allow-Methods (Fetch: CORS-safelisted methods). */
const SAFELISTED = ['GET', 'HEAD', 'POST'];

/** The methods of each path of the document's public surface, under the target's root (a preflight names one of them). */
const PATHS: Array<[RegExp, string[]]> = [
  [/^\/api\/v1\/(upload|image|predict|shares)$/, ['POST']],
  [/^\/api\/v1\/(upload|image|shares)\/[^/]+$/, ['GET', 'DELETE']],
  [/^\/api\/v1\/upload\/[^/]+\/(complete|abort)$/, ['POST']],
  [/^\/api\/v1\/models$/, ['GET']],
  [/^\/api\/v1\/predict\/[^/]+$/, ['GET']],
  [/^\/api\/v1\/export\/[^/]+\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/, ['GET']],
];

const allows = (x: Exchange, origin: string): boolean => {
  const allowed = x.headers['access-control-allow-origin'];
  return allowed === '*' || allowed === origin;
};

const listed = (header: string | undefined): string[] =>
  (header ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);

const where = (x: Exchange, origin: string) =>
  `${x.method} ${new URL(x.url).pathname.replace(/\/[^/]{20,}$/, '/…')} (Origin ${origin})`;

/** The origin of the host a request went to and the page's, as one key: an allowed pair is allowed on every route of that host. */
const hostAndOrigin = (x: Exchange, origin: string): string => `${new URL(x.url).origin} ${origin}`;

export function observeCors(world: World, x: Exchange): Finding[] {
  const origin = x.sentHeaders?.origin;
  if (origin === undefined) return [];
  if (x.method === 'OPTIONS') return observePreflight(world, x, origin);
  if (!allows(x, origin)) return refusedAfterAllowed(world, x, origin);
  (world.corsOrigins ??= new Set()).add(origin);
  (world.corsHosts ??= new Set()).add(hostAndOrigin(x, origin));
  const exposed = listed(x.headers['access-control-expose-headers']);
  // `*` exposes every header to a request without credentials (Fetch), which these are
  if (exposed.includes('*') && x.headers['access-control-allow-credentials'] !== 'true') return [];
  const missing = EXPOSED.filter((name) => !exposed.includes(name.toLowerCase()));
  if (missing.length === 0) return [];
  return [
    {
      sentence: SENTENCE,
      subject: `${where(x, origin)}: Access-Control-Expose-Headers`,
      predicted: `lists ${missing.join(', ')}`,
      received: JSON.stringify(x.headers['access-control-expose-headers'] ?? null),
    },
  ];
}

/**
 * An answer without the origin allowed, from a host that allowed it before: which origins a host
 * allows is its configuration, the same on every route and whatever the status ("every route
 * answers CORS"), so a 401 or 404 that leaves the headers out (a guard that answers before the CORS
 * layer) is an opaque network error to the page, which never reads its status or WWW-Authenticate.
 * A 5xx is left to the rules on server errors.
 */
function refusedAfterAllowed(world: World, x: Exchange, origin: string): Finding[] {
  if (x.status >= 500 || !world.corsHosts?.has(hostAndOrigin(x, origin))) return [];
  return [
    {
      sentence: SENTENCE,
      subject: `${where(x, origin)}: Access-Control-Allow-Origin of a ${x.status} (the host allowed the origin before)`,
      predicted: `* or ${origin}`,
      received: JSON.stringify(x.headers['access-control-allow-origin'] ?? null),
    },
  ];
}

/** The URL's path with the target's root path taken off (`/api/v1/…`); undefined outside that root. */
function routeOf(world: World, url: string): string | undefined {
  const path = new URL(url).pathname;
  const base = world.basePath ?? '';
  return path.startsWith(`${base}/`) ? path.slice(base.length) : undefined;
}

/**
 * A browser's preflight of one of the document's operations, from an origin the target allows
 * (its answer says so, or an earlier answer to that origin did): answered with an ok status
 * whatever credential it lacks (a browser never sends one on a preflight, so a route that asks
 * for the key first shuts every page out), the origin allowed, the method asked for (unless
 * CORS-safelisted: GET, HEAD and POST need no listing) and each header asked for that the
 * operations read listed (`*` stands for neither `Authorization` nor anything when credentials
 * are allowed, Fetch).
 */
function observePreflight(world: World, x: Exchange, origin: string): Finding[] {
  const method = x.sentHeaders?.['access-control-request-method']?.toUpperCase();
  const path = routeOf(world, x.url);
  const methods = path === undefined ? undefined : PATHS.find(([pattern]) => pattern.test(path))?.[1];
  if (method === undefined || !methods?.includes(method)) return [];
  if (!allows(x, origin) && !world.corsOrigins?.has(origin)) return [];
  const findings: Finding[] = [];
  const say = (subject: string, predicted: string, received: string) =>
    findings.push({ sentence: PREFLIGHT, subject: `${where(x, origin)}: ${subject}`, predicted, received });
  if (x.status < 200 || x.status > 299) say('status', 'an ok status (2xx)', String(x.status));
  if (!allows(x, origin))
    say(
      'Access-Control-Allow-Origin',
      `* or ${origin}`,
      JSON.stringify(x.headers['access-control-allow-origin'] ?? null),
    );
  const credentials = x.headers['access-control-allow-credentials'] === 'true';
  const allowedMethods = listed(x.headers['access-control-allow-methods']).map((m) => m.toUpperCase());
  if (
    !SAFELISTED.includes(method) &&
    !allowedMethods.includes(method) &&
    (credentials || !allowedMethods.includes('*'))
  )
    say(
      'Access-Control-Allow-Methods',
      `lists ${method}`,
      JSON.stringify(x.headers['access-control-allow-methods'] ?? null),
    );
  const allowedHeaders = listed(x.headers['access-control-allow-headers']);
  const wildcard = !credentials && allowedHeaders.includes('*');
  const missing = listed(x.sentHeaders?.['access-control-request-headers'])
    .filter((name) => READ_HEADERS.includes(name) && !allowedHeaders.includes(name))
    .filter((name) => name === 'authorization' || !wildcard);
  if (missing.length)
    say(
      'Access-Control-Allow-Headers',
      `lists ${missing.join(', ')}`,
      JSON.stringify(x.headers['access-control-allow-headers'] ?? null),
    );
  return findings;
}
