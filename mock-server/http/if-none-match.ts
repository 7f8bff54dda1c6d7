/**
 * RFC 9110 13.1.2: If-None-Match holds when any tag it lists matches the current one by weak
 * comparison (a `W/` prefix on either side is ignored), or when it is `*` and the resource exists.
 */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const current = opaque(etag);
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || opaque(trimmed) === current;
  });
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}
