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
