/** Small readers of export files: CSV rows and the names in a ZIP's central directory. */

/** RFC 4180 rows: quoted cells may hold commas, quotes (doubled) and line breaks. */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  /** Whether the current line holds anything: a quote (`""`) counts, so it is a row of one empty cell. */
  let held = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\n' && c !== '\r') held = true;
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (quoted || (c !== ',' && c !== '\n' && c !== '\r')) cell += c;
    else if (c === ',') endCell();
    else {
      if (c === '\r' && text[i + 1] === '\n') i++;
      // a blank line is no record: readers (pandas, Python's DictReader) skip it
      if (held) endCell();
      rows.push(held ? row : []);
      row = [];
      held = false;
    }
  }
  if (held) {
    endCell();
    rows.push(row);
  }
  return rows;
}

/** The file names a ZIP's central directory lists, in order; undefined when it is not a ZIP. */
export function zipEntryNames(zip: Buffer): string[] | undefined {
  const end = zip.lastIndexOf(END_OF_DIRECTORY);
  if (end < 0 || end + 22 > zip.length) return undefined;
  const count = zip.readUInt16LE(end + 10);
  const names: string[] = [];
  for (let i = 0, at = zip.readUInt32LE(end + 16); i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) return undefined;
    const [nameLength, extraLength, commentLength] = [28, 30, 32].map((o) => zip.readUInt16LE(at + o));
    names.push(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

const END_OF_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
