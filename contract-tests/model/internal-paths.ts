import type { Exchange, Finding } from './exchange.js';
import type { World } from './world.js';

/**
 * Endpoints outside the public product surface (mock-control.yaml, tag `internal`): the
 * organization listing, key creation and model training, which a valid key is refused ("A valid key
 * used on an endpoint outside the public product surface yields 403"; "keys cannot be created
 * through the API"). A router may take other spellings of a path for it (a trailing slash, doubled
 * slashes, letters in another case, percent-encoded letters); a guard that compares the path as
 * written then lets them through. Whatever a target answers such a spelling (403, a 404 of a route
 * it does not know, a redirect to the path), it never serves the endpoint: no 2xx.
 */
const SENTENCE =
  'A valid key used on an endpoint outside the public product surface yields 403; keys cannot be created through the API (any spelling of its path a router takes for it is that endpoint: never a 2xx)';

const INTERNAL = [/^\/api\/v1\/organizations$/, /^\/api\/v1\/api-keys$/, /^\/api\/v1\/models\/[^/]+\/train$/];

/** The path as a lenient router reads it: decoded, slashes collapsed, no trailing slash, lower case. */
export function leniently(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // a malformed escape routes nowhere: read as written
  }
  return decoded
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '')
    .toLowerCase();
}

/** Whether the request went to an endpoint outside the public surface, however its path was spelled. */
export function isInternal(world: World, url: string): boolean {
  const path = new URL(url).pathname;
  const base = world.basePath ?? '';
  if (!path.startsWith(`${base}/`)) return false;
  const route = leniently(path.slice(base.length));
  return INTERNAL.some((pattern) => pattern.test(route));
}

/** A valid key's request to an internal endpoint: refused, never served. */
export function observeInternal(x: Exchange): Finding[] {
  if (x.status < 200 || x.status > 299) return [];
  return [
    {
      sentence: SENTENCE,
      subject: `${x.method} ${new URL(x.url).pathname} with a valid key: status`,
      predicted: 'not 2xx (403, or a route the target does not know)',
      received: String(x.status),
    },
  ];
}
