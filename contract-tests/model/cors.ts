import type { Exchange, Finding } from './exchange.js';

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

const EXPOSED = ['ETag', 'Content-Disposition', 'X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'Allow'];

export function observeCors(x: Exchange): Finding[] {
  const origin = x.sentHeaders?.origin;
  if (origin === undefined || x.method === 'OPTIONS') return [];
  const allowed = x.headers['access-control-allow-origin'];
  if (allowed !== '*' && allowed !== origin) return [];
  const listed = (x.headers['access-control-expose-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  // `*` exposes every header to a request without credentials (Fetch), which these are
  if (listed.includes('*') && x.headers['access-control-allow-credentials'] !== 'true') return [];
  const missing = EXPOSED.filter((name) => !listed.includes(name.toLowerCase()));
  if (missing.length === 0) return [];
  return [
    {
      sentence: SENTENCE,
      subject: `${x.method} ${new URL(x.url).pathname.replace(/\/[^/]{20,}$/, '/…')} (Origin ${origin}): Access-Control-Expose-Headers`,
      predicted: `lists ${missing.join(', ')}`,
      received: JSON.stringify(x.headers['access-control-expose-headers'] ?? null),
    },
  ];
}
