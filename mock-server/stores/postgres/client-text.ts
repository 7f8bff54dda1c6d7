/**
 * A client's text (a name, a folder, a fault's detail) as PostgreSQL stores it: JSON text, as
 * SQLite does (stores/sqlite/database/statements.ts). PostgreSQL's `text` cannot hold NUL, the
 * driver turns a lone UTF-16 surrogate into U+FFFD on the way, and `jsonb` refuses both; JSON
 * escapes them (\u0000, \ud800), so the text reads back exactly as the client sent it.
 */
export const clientText = (text: string): string => JSON.stringify(text);
export const fromClientText = (stored: unknown): string => JSON.parse(stored as string) as string;
