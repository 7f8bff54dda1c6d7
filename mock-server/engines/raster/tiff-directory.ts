/**
 * The low-level reading of a TIFF for tiff-inspect.ts: byte ranges through a file handle (never
 * the whole file), in the file's byte order, classic or BigTIFF offsets, and the entries and
 * numeric tag values of one directory (IFD).
 */
import type { FileHandle } from 'node:fs/promises';
import { formatCount, tiffFault } from './tiff-error.js';

/** Optional observer of reads, for tests that prove the file is never read whole. */
export interface InspectIo {
  onRead?: (position: number, length: number) => void;
}

export const TAG_NAMES: Record<number, string> = {
  256: 'ImageWidth',
  257: 'ImageLength',
  258: 'BitsPerSample',
  259: 'Compression',
  273: 'StripOffsets',
  279: 'StripByteCounts',
  324: 'TileOffsets',
  325: 'TileByteCounts',
  339: 'SampleFormat',
};

/** Bytes of one value, by TIFF field type (0 where the type is unknown). */
const TYPE_SIZES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8];

export class Reader {
  /** Bytes read so far, and the most the whole walk may read (see `bytes`). */
  private read = 0;
  private readonly readLimit: number;

  constructor(
    private readonly fh: FileHandle,
    readonly size: number,
    private readonly io: InspectIo,
    public le = true,
    public big = false,
  ) {
    this.readLimit = 2 * size + 64 * 1024;
  }

  async bytes(position: number, length: number, what: string): Promise<Buffer> {
    if (position < 0 || position + length > this.size) {
      throw tiffFault(
        'truncated',
        `${what} lies past the end of the file (needs ${formatCount(length)} bytes at offset ${formatCount(position)}; the file has ${formatCount(this.size)})`,
      );
    }
    // A writer gives each directory and each value array bytes of their own, so a walk reads a
    // file's structure about once. Directories that all point at one big strip table, or overlap,
    // made the walk read (and check value by value) that table once per directory: an 18 MB file
    // of 100,000 pages held a decoder for its whole time budget. Past twice the file, it is refused.
    this.read += length;
    if (this.read > this.readLimit) {
      throw tiffFault(
        'corrupt',
        `the image directories point at the same bytes over and over: reading them would take more than ${formatCount(this.readLimit)} bytes from a file of ${formatCount(this.size)}`,
      );
    }
    const buf = Buffer.alloc(length);
    this.io.onRead?.(position, length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.fh.read(buf, done, length - done, position + done);
      if (bytesRead === 0) throw tiffFault('truncated', `the file ended while reading ${what}`);
      done += bytesRead;
    }
    return buf;
  }

  u16(b: Buffer, o: number) {
    return this.le ? b.readUInt16LE(o) : b.readUInt16BE(o);
  }
  u32(b: Buffer, o: number) {
    return this.le ? b.readUInt32LE(o) : b.readUInt32BE(o);
  }
  u64(b: Buffer, o: number) {
    const v = this.le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o);
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
  }
  offset(b: Buffer, o: number) {
    return this.big ? this.u64(b, o) : this.u32(b, o);
  }
}

interface Entry {
  type: number;
  count: number;
  /** Raw 4 or 8 value bytes of the entry. */
  inline: Buffer;
}

export interface Ifd {
  next: number;
  entries: Map<number, Entry>;
}

export async function readIfd(r: Reader, offset: number, pageNo: number): Promise<Ifd> {
  const countSize = r.big ? 8 : 2;
  const entrySize = r.big ? 20 : 12;
  const what = `the directory (IFD) of page ${pageNo} at offset ${formatCount(offset)}`;
  const head = await r.bytes(offset, countSize, what);
  const n = r.big ? r.u64(head, 0) : r.u16(head, 0);
  if (n === 0) throw tiffFault('corrupt', `${what} has no entries`);
  if (n > 100_000)
    throw tiffFault('corrupt', `the directory (IFD) of page ${pageNo} claims ${formatCount(n)} entries`);
  const body = await r.bytes(offset + countSize, n * entrySize + (r.big ? 8 : 4), what);
  const entries = new Map<number, Entry>();
  for (let i = 0; i < n; i++) {
    const o = i * entrySize;
    const tag = r.u16(body, o);
    const type = r.u16(body, o + 2);
    const count = r.big ? r.u64(body, o + 4) : r.u32(body, o + 4);
    const inline = body.subarray(o + (r.big ? 12 : 8), o + entrySize);
    if (!entries.has(tag)) entries.set(tag, { type, count, inline });
  }
  return { next: r.offset(body, n * entrySize), entries };
}

/** Numeric values of a tag (integers and floats; rationals as num/den). */
export async function values(
  r: Reader,
  ifd: Ifd,
  tag: number,
  pageNo: number,
): Promise<number[] | undefined> {
  const e = ifd.entries.get(tag);
  if (!e) return undefined;
  const size = TYPE_SIZES[e.type];
  const name = TAG_NAMES[tag] ?? `tag ${tag}`;
  if (!size) throw tiffFault('corrupt', `${name} of page ${pageNo} has unknown field type ${e.type}`);
  const total = size * e.count;
  const buf =
    total <= e.inline.length
      ? e.inline
      : await r.bytes(r.offset(e.inline, 0), total, `the ${name} values of page ${pageNo}`);
  const le = r.le;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const readers: Record<number, (o: number) => number> = {
    1: (o) => dv.getUint8(o),
    2: (o) => dv.getUint8(o),
    3: (o) => dv.getUint16(o, le),
    4: (o) => dv.getUint32(o, le),
    5: (o) => dv.getUint32(o, le) / (dv.getUint32(o + 4, le) || 1),
    6: (o) => dv.getInt8(o),
    7: (o) => dv.getUint8(o),
    8: (o) => dv.getInt16(o, le),
    9: (o) => dv.getInt32(o, le),
    10: (o) => dv.getInt32(o, le) / (dv.getInt32(o + 4, le) || 1),
    11: (o) => dv.getFloat32(o, le),
    12: (o) => dv.getFloat64(o, le),
    13: (o) => dv.getUint32(o, le),
  };
  const read = readers[e.type] ?? ((o: number) => r.u64(buf, o)); // 16, 17, 18: 64-bit integers
  return Array.from({ length: e.count }, (_, i) => read(i * size));
}

export async function one(r: Reader, ifd: Ifd, tag: number, pageNo: number): Promise<number | undefined> {
  const v = await values(r, ifd, tag, pageNo);
  return v?.[0];
}
