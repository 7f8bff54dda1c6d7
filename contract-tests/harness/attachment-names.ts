/**
 * The file names a Content-Disposition offers: the quoted `filename` and, when there is one, the
 * RFC 5987 `filename*` decoded. A quoted form that had to replace characters (a name outside
 * printable ASCII) is left out: only the extended form then names the file.
 */
export function attachmentNames(disposition: string): Record<string, string> {
  const names: Record<string, string> = {};
  const quoted = /filename="((?:[^"\\]|\\.)*)"/.exec(disposition)?.[1]?.replace(/\\(.)/g, '$1');
  const extended = /filename\*=UTF-8''([^;\s]+)/i.exec(disposition)?.[1];
  if (extended !== undefined) names['filename*'] = decodeURIComponent(extended);
  if (
    quoted !== undefined &&
    (extended === undefined ||
      (/^[\x20-\x7e]*$/.test(names['filename*']) && !/["%\\]/.test(names['filename*'])))
  )
    names.filename = quoted;
  return names;
}
