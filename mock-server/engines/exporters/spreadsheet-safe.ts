/**
 * CSV formula injection (OWASP, "CSV Injection"): Excel, LibreOffice and Google Sheets run a cell
 * that starts with `=`, `+`, `-` or `@` as a formula, and a leading tab or carriage return is
 * dropped before that test, so `\t=HYPERLINK(...)` runs too. An image's name is the client's text,
 * and it is written on every row of `measurements.csv`: OWASP's mitigation is to start such a cell
 * with an apostrophe, which every spreadsheet reads as "this cell is text" and does not show.
 * Numbers never pass through here (a negative number is a number, not a formula).
 */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/** `text` as a spreadsheet will show it and never run it: unchanged unless it starts a formula. */
export function spreadsheetSafe(text: string): string {
  return text.length > 0 && FORMULA_TRIGGERS.has(text[0]) ? `'${text}` : text;
}
