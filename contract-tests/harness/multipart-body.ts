/**
 * The `file` part of a multipart/form-data body a check sent as bytes (a body a FormData cannot
 * write, such as one whose boundary parameter is quoted, as RFC 2046 allows): its file name and
 * size, as the oracle reads a FormData's. Undefined when the body holds no such part.
 */
export function multipartFileOf(
  bytes: Buffer,
  contentType: string | undefined,
): { name: string; size: number } | undefined {
  const params = /^multipart\/form-data\s*;(.*)$/i.exec(contentType ?? '')?.[1] ?? '';
  const found = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(params);
  if (!found) return undefined;
  const delimiter = `--${found[1] ?? found[2]}`;
  let at = bytes.indexOf(delimiter);
  while (at >= 0) {
    const headersEnd = bytes.indexOf('\r\n\r\n', at);
    const next = headersEnd < 0 ? -1 : bytes.indexOf(`\r\n${delimiter}`, headersEnd + 4);
    if (next < 0) return undefined;
    const headers = bytes.subarray(at + delimiter.length, headersEnd).toString('latin1');
    if (/;\s*name="file"/i.test(headers)) {
      const filename = /;\s*filename="([^"]*)"/i.exec(headers)?.[1] ?? '';
      return { name: Buffer.from(filename, 'latin1').toString('utf8'), size: next - (headersEnd + 4) };
    }
    at = next + 2;
  }
  return undefined;
}
