/**
 * RFC 9110 13.1.2: If-None-Match holds when any tag it lists matches the current one by weak
 * comparison (a `W/` prefix on either side is ignored), or when it is `*` and the resource exists.
 * A header that is not a list of entity-tags names no version of the file, and the file is sent.
 */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const current = opaque(etag);
  return (listedTags(header) ?? []).some((tag) => opaque(tag) === current);
}

/**
 * The entity-tags of a list (RFC 9110 5.6.1: empty elements allowed), read tag by tag rather than
 * split on commas, since a comma is a legal character inside a quoted tag (8.8.3); undefined when
 * the header is not such a list (an unquoted tag, a lower-case `w/`, two tags with no comma).
 */
function listedTags(header: string): string[] | undefined {
  const element = /[ \t]*(?:((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")[ \t]*)?(?:,|$)/y;
  const tags: string[] = [];
  for (let at = 0; at < header.length;) {
    element.lastIndex = at;
    const found = element.exec(header);
    if (!found || element.lastIndex === at) return undefined;
    if (found[1]) tags.push(found[1]);
    at = element.lastIndex;
  }
  return tags;
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}
