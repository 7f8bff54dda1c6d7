/**
 * A client's text (a name, a folder, a setting's value) as both engines store it: JSON text.
 * SQLite keeps TEXT as UTF-8, which cannot hold a lone UTF-16 surrogate; PostgreSQL's `text`
 * cannot hold NUL, and its driver turns a lone surrogate into U+FFFD on the way. A JSON string can
 * carry both, and JSON escapes them (\u0000, \ud800), so the text reads back exactly as it was sent.
 */
export const clientText = (text: string): string => JSON.stringify(text);

export const fromClientText = (stored: unknown): string => {
  const text = stored as string;
  // JSON writes every character it escapes with a backslash: without one, the text is between the quotes.
  return text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1);
};
