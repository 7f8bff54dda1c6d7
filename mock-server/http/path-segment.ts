/** A path segment as the routes read it, and literal text inside a route's pattern. */

/** The segment percent-decoded, or undefined when its encoding is broken (`%E0`, `%zz`). */
export function decodeSegment(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Text that matches itself inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * How many `/` a path holds. A route's pattern matches a parameter within one segment (`[^/]+`),
 * so only templates with as many slashes as the path can match it: the routers look there alone.
 */
export function slashCount(path: string): number {
  let count = 0;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) count++;
  return count;
}

/**
 * Routes grouped by slashCount of their template, order kept: what a router looks through for a
 * path is `candidatesFor(groups, path)`.
 */
export function groupBySlashes<T>(routes: T[], templateOf: (route: T) => string): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const route of routes) {
    const slashes = slashCount(templateOf(route));
    const group = groups.get(slashes);
    if (group) group.push(route);
    else groups.set(slashes, [route]);
  }
  return groups;
}

/** The routes of `groups` that can match `path` (those with as many slashes). */
export function candidatesFor<T>(groups: Map<number, T[]>, path: string): T[] {
  return groups.get(slashCount(path)) ?? [];
}
