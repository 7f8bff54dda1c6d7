/**
 * RFC 9110 13.1.2: If-None-Match holds when any tag it lists matches the current one by weak
 * comparison (a `W/` prefix on either side is ignored), or when it is `*` and the resource exists.
 * The list is read tag by tag, not split on commas: a comma is a legal character inside a quoted
 * entity-tag (RFC 9110 8.8.3).
 */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const current = opaque(etag);
  return (header.match(ENTITY_TAG) ?? []).some((tag) => opaque(tag) === current);
}

const ENTITY_TAG = /(?:W\/)?"[^"]*"/g;

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}
