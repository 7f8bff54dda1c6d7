/**
 * `attachment; filename="<ascii>"; filename*=UTF-8''<percent-encoded>` (RFC 6266 with RFC 5987's
 * ext-value) for any name a JSON body can carry. A lone UTF-16 surrogate cannot be UTF-8 encoded
 * (encodeURIComponent throws on it), so it becomes U+FFFD first; the quoted fallback keeps only
 * printable ASCII that needs no escaping and cannot be mistaken for a percent-encoding. Neither
 * form carries a path: a client that saves under the offered name as it is (RFC 6266 section 4.3
 * asks recipients to strip paths, not every one does) must not write outside its folder.
 */
export function contentDisposition(imageName: string, exportName: string): string {
  const base = imageName.replace(/\.(ome\.)?tiff?$/i, '');
  const filename = `${base}_${exportName}`.toWellFormed().replace(/[/\\]/g, '_');
  const ascii = filename.replace(/[^\x20-\x7e]|["%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeExtValue(filename)}`;
}

/** RFC 5987 attr-char leaves out ' ( ) * that encodeURIComponent keeps. */
function encodeExtValue(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
