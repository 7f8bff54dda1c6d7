/**
 * The layout a TIFF's directories declare, read from the bytes a client uploads (TIFF 6.0; BigTIFF
 * for magic 43): pages, height, width and samples per pixel. The oracle predicts an image's `shape`
 * from it (openapi.yaml, Image.shape, assumed): `[height, width]`, with a leading page count when
 * the TIFF has more than one page and a trailing channel count when it has more than one sample
 * per pixel. Only a plain layout is read: every directory of the chain a full-resolution page of
 * the first one's size and samples. A thumbnail or reduced-resolution page (NewSubfileType bit 0),
 * pages of other sizes, a loop, a directory past the bytes or a chain past MAX_PAGES leave the
 * count open to reading, and answer undefined: nothing is predicted of such a file.
 */
export interface TiffLayout {
  pages: number;
  height: number;
  width: number;
  samples: number;
}

const MAX_PAGES = 10_000;
const TAG = { subfileType: 254, width: 256, height: 257, samples: 277 };

/** The shape the document gives a converted image of this layout. */
export function shapeOf(layout: TiffLayout): number[] {
  return [
    ...(layout.pages > 1 ? [layout.pages] : []),
    layout.height,
    layout.width,
    ...(layout.samples > 1 ? [layout.samples] : []),
  ];
}

interface Reader {
  big: boolean;
  u16(at: number): number;
  u32(at: number): number;
  /** An offset or count of BigTIFF's 8 bytes, as a safe integer (past that: Infinity). */
  u64(at: number): number;
}

function readerOf(bytes: Buffer): Reader | undefined {
  if (bytes.length < 8) return undefined;
  const order = bytes.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return undefined;
  const le = order === 'II';
  const u16 = (at: number) => (le ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at));
  const u32 = (at: number) => (le ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
  const u64 = (at: number) => {
    const value = le ? bytes.readBigUInt64LE(at) : bytes.readBigUInt64BE(at);
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(value);
  };
  const magic = u16(2);
  if (magic === 42) return { big: false, u16, u32, u64 };
  if (magic === 43 && bytes.length >= 16 && u16(4) === 8) return { big: true, u16, u32, u64 };
  return undefined;
}

/** The tags of one directory this reads (inline SHORT, LONG or LONG8 values), and the next directory's offset. */
function directory(
  bytes: Buffer,
  r: Reader,
  at: number,
): { tags: Map<number, number>; next: number } | undefined {
  const countSize = r.big ? 8 : 2;
  const entrySize = r.big ? 20 : 12;
  if (at + countSize > bytes.length) return undefined;
  const count = r.big ? r.u64(at) : r.u16(at);
  const end = at + countSize + count * entrySize;
  if (end + (r.big ? 8 : 4) > bytes.length) return undefined;
  const tags = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const entry = at + countSize + i * entrySize;
    const tag = r.u16(entry);
    if (!Object.values(TAG).includes(tag)) continue;
    const type = r.u16(entry + 2);
    const valueAt = entry + (r.big ? 12 : 8);
    if (type === 3) tags.set(tag, r.u16(valueAt));
    else if (type === 4) tags.set(tag, r.u32(valueAt));
    else if (type === 16 && r.big) tags.set(tag, r.u64(valueAt));
    else return undefined;
  }
  return { tags, next: r.big ? r.u64(end) : r.u32(end) };
}

export function tiffLayout(bytes: Buffer): TiffLayout | undefined {
  const r = readerOf(bytes);
  if (!r) return undefined;
  let at = r.big ? r.u64(8) : r.u32(4);
  const seen = new Set<number>();
  let layout: TiffLayout | undefined;
  while (at !== 0) {
    if (seen.has(at) || seen.size >= MAX_PAGES) return undefined;
    seen.add(at);
    const ifd = directory(bytes, r, at);
    if (!ifd || ((ifd.tags.get(TAG.subfileType) ?? 0) & 1) === 1) return undefined;
    const width = ifd.tags.get(TAG.width);
    const height = ifd.tags.get(TAG.height);
    const samples = ifd.tags.get(TAG.samples) ?? 1;
    if (!width || !height || !samples) return undefined;
    if (!layout) layout = { pages: 0, height, width, samples };
    else if (layout.width !== width || layout.height !== height || layout.samples !== samples)
      return undefined;
    layout.pages++;
    at = ifd.next;
  }
  return layout;
}
