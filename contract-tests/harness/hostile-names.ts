export const MARKUP = '<script>alert(1)</script><img src=x onerror=alert(2)>';

/**
 * An image name holding markup, quotes, a header split and path characters. The run's prefix is in
 * its last path segment too: a target may fairly keep the basename alone (`evil.tif`), and the
 * cleanup deletes only an image whose stored name still holds the prefix.
 */
export function hostileName(namePrefix: string): string {
  return `${namePrefix}${MARKUP} "q" 'a';b\r\nSet-Cookie: split=1 ../../etc\\${namePrefix}evil.tif`;
}
