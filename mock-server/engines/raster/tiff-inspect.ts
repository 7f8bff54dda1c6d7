/**
 * Reads a TIFF's structure without reading its pixels.
 *
 *   inspectTiff(path, limits?) -> Promise<TiffInfo>     throws TiffError
 *
 * Only the byte ranges it needs are read (header, each IFD, out-of-line tag values), through a
 * file handle, so a 4 GB upload costs a few kilobytes of I/O. It parses classic TIFF (magic 42)
 * and BigTIFF (43) in either byte order, walks the whole IFD chain (a loop is an error), checks the
 * first page's geometry against `limits.maxPixels`, checks that every strip or tile of every
 * counted page (offset + byte count) lies inside the file, and last checks the bytes the pixels
 * decode to against `limits.maxDecodedBytes` (decode-budget.ts).
 *
 * Pages. `pages` counts the IFDs of the main chain that are full-resolution images of the same
 * width, height and samples per pixel as the first (reduced-resolution IFDs, NewSubfileType bit 0,
 * such as embedded thumbnails, and IFDs of another size are not counted). Decoding uses page 1.
 *
 * Shape convention (`TiffInfo.shape`, copied to the image's `shape`):
 *   [height, width]                       one page, one sample per pixel
 *   [pages, height, width]                several pages (leading page count)
 *   [height, width, samplesPerPixel]      several samples per pixel (trailing channel count,
 *                                         alpha and other extra samples included)
 *   [pages, height, width, samplesPerPixel]
 * e.g. [512, 512], [3, 512, 512], [512, 512, 3].
 *
 * Supported samples: unsigned 8, 16 and 32-bit integers, signed 8, 16 and 32-bit integers, 32-bit
 * IEEE float, all samples of a pixel the same. Anything else is "unsupported" (1-bit, 12-bit,
 * 64-bit, complex, mixed depths).
 */
import { open } from 'node:fs/promises';
import { checkDecodeBudget } from './decode-budget.js';
import { TiffError, formatCount, tiffFault } from './tiff-error.js';
import { type Ifd, type InspectIo, one, Reader, readIfd, TAG_NAMES, values } from './tiff-directory.js';
import type { TiffInfo } from './tiff-info.js';

export const DEFAULT_MAX_PIXELS = 400_000_000;
/** IFDs walked at most; a chain longer than this is treated as corrupt. */
const MAX_IFDS = 100_000;

export interface TiffLimits {
  /** Largest width x height of a page accepted. Default 400 megapixels. */
  maxPixels?: number;
  /** Largest decoded size of the file (decode-budget.ts). Default 4 GiB. */
  maxDecodedBytes?: number;
}

const MAGIC_NAMES: Array<[number[], string]> = [
  [[0x89, 0x50, 0x4e, 0x47], 'PNG'],
  [[0xff, 0xd8, 0xff], 'JPEG'],
  [[0x47, 0x49, 0x46, 0x38], 'GIF'],
  [[0x42, 0x4d], 'BMP'],
  [[0x25, 0x50, 0x44, 0x46], 'PDF'],
  [[0x50, 0x4b, 0x03, 0x04], 'ZIP'],
  [[0x50, 0x4b, 0x05, 0x06], 'ZIP'],
  [[0x1f, 0x8b], 'gzip'],
  [[0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50], 'JPEG 2000'],
  [[0x52, 0x49, 0x46, 0x46], 'RIFF/WebP'],
  [[0x7b], 'JSON or text'],
  [[0x3c], 'HTML or XML'],
];

const hex = (b: Buffer) => (b.toString('hex').match(/../g) ?? []).join(' ').toUpperCase();

function describeMagic(head: Buffer): string {
  const first = head.subarray(0, 4);
  for (const [magic, name] of MAGIC_NAMES) {
    if (head.length >= magic.length && magic.every((m, i) => head[i] === m)) {
      return `not a TIFF: the file starts with bytes ${hex(first)} (${name}); upload a TIFF image (.tif, .tiff)`;
    }
  }
  return `not a TIFF: the file starts with bytes ${hex(first)}, but a TIFF starts with 49 49 2A 00 ("II*") or 4D 4D 00 2A ("MM*")`;
}

type PageGeometry = Awaited<ReturnType<typeof geometry>>;

async function geometry(r: Reader, ifd: Ifd, pageNo: number) {
  const width = await one(r, ifd, 256, pageNo);
  const height = await one(r, ifd, 257, pageNo);
  if (!width || !height) {
    throw tiffFault(
      'corrupt',
      `page ${pageNo} has no image size (ImageWidth and ImageLength tags missing or zero)`,
    );
  }
  const spp = (await one(r, ifd, 277, pageNo)) ?? 1;
  const subfile = (await one(r, ifd, 254, pageNo)) ?? 0;
  return { width, height, spp, reduced: (subfile & 1) === 1 };
}

/** Checks that every strip or tile of a page lies inside the file; returns offsets and counts. */
async function checkChunks(
  r: Reader,
  ifd: Ifd,
  g: PageGeometry,
  pageNo: number,
  compression: number,
  bits: number,
) {
  const tileWidth = await one(r, ifd, 322, pageNo);
  const tileHeight = await one(r, ifd, 323, pageNo);
  const tiled = tileWidth !== undefined || tileHeight !== undefined || ifd.entries.has(324);
  const planar = ((await one(r, ifd, 284, pageNo)) ?? 1) === 2;
  const planes = planar ? g.spp : 1;
  // Samples of a pixel one chunk holds: one plane's when the samples are planar.
  const chunkSpp = planar ? 1 : g.spp;
  const stripRowBytes = Math.ceil((g.width * bits * chunkSpp) / 8);
  const unit = tiled ? 'tile' : 'strip';
  let expected: number;
  let rowsPerStrip = g.height;
  let chunkBytes: number;
  if (tiled) {
    if (!tileWidth || !tileHeight)
      throw tiffFault(
        'corrupt',
        `page ${pageNo} is tiled but its TileWidth or TileLength is missing or zero`,
      );
    expected = Math.ceil(g.width / tileWidth) * Math.ceil(g.height / tileHeight) * planes;
    chunkBytes = Math.ceil((tileWidth * tileHeight * bits * chunkSpp) / 8);
  } else {
    const rps = await one(r, ifd, 278, pageNo);
    rowsPerStrip = rps && rps > 0 ? Math.min(rps, g.height) : g.height;
    expected = Math.ceil(g.height / rowsPerStrip) * planes;
    chunkBytes = stripRowBytes * rowsPerStrip;
  }
  const offTag = tiled ? 324 : 273;
  const cntTag = tiled ? 325 : 279;
  const offsets = await values(r, ifd, offTag, pageNo);
  if (!offsets || offsets.length === 0)
    throw tiffFault(
      'corrupt',
      `page ${pageNo} has no ${TAG_NAMES[offTag]} tag, so its pixels cannot be found`,
    );
  if (offsets.length < expected) {
    throw tiffFault(
      'corrupt',
      `page ${pageNo} lists ${formatCount(offsets.length)} ${unit}s but its size needs ${formatCount(expected)}`,
    );
  }
  let counts = await values(r, ifd, cntTag, pageNo);
  if (!counts) {
    if (compression !== 1) throw tiffFault('corrupt', `page ${pageNo} has no ${TAG_NAMES[cntTag]} tag`);
    counts = offsets.map(() => chunkBytes); // libtiff estimates them the same way for uncompressed data
  }
  if (counts.length < expected) {
    throw tiffFault(
      'corrupt',
      `page ${pageNo} lists ${formatCount(counts.length)} ${unit} byte counts but its size needs ${formatCount(expected)}`,
    );
  }
  const where = (i: number) =>
    `${unit} ${formatCount(i + 1)} of ${formatCount(expected)}${pageNo > 1 ? ` on page ${pageNo}` : ''}`;
  for (let i = 0; i < expected; i++) {
    const end = offsets[i] + counts[i];
    if (end > r.size) {
      throw tiffFault(
        'truncated',
        `${where(i)} ends past the end of the file (needs ${formatCount(counts[i])} bytes at offset ${formatCount(offsets[i])}; the file has ${formatCount(r.size)}). The upload may have been cut short; upload the complete file`,
      );
    }
  }
  if (compression === 1) {
    for (let i = 0; i < expected; i++) {
      // The last strip may be short; every other uncompressed chunk must hold its pixels.
      const need =
        !tiled && i % (expected / planes) === expected / planes - 1
          ? stripRowBytes * (g.height - rowsPerStrip * (expected / planes - 1))
          : chunkBytes;
      if (counts[i] < need) {
        throw tiffFault(
          'truncated',
          `${where(i)} holds ${formatCount(counts[i])} bytes but its uncompressed pixels need ${formatCount(need)}`,
        );
      }
    }
  }
  return {
    tiled,
    tileWidth,
    tileHeight,
    offsets: offsets.slice(0, expected),
    counts: counts.slice(0, expected),
  };
}

export async function inspectTiff(
  path: string,
  limits: TiffLimits = {},
  io: InspectIo = {},
): Promise<TiffInfo> {
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    if (size === 0) throw new TiffError('empty', 'empty file: 0 bytes were received; upload the TIFF again');
    const r = new Reader(fh, size, io);
    const first = await readHeader(r);
    const ifd0 = await readIfd(r, first, 1);
    const g = await geometry(r, ifd0, 1);
    if (g.width * g.height > maxPixels) {
      throw new TiffError(
        'too-large',
        `too large: ${formatCount(g.width)} x ${formatCount(g.height)} pixels declared, above this server's limit of ${formatCount(maxPixels / 1e6)} megapixels`,
      );
    }
    const { bits, sampleFormat } = await sampleType(r, ifd0);
    const compression = (await one(r, ifd0, 259, 1)) ?? 1;
    const chunks = await checkChunks(r, ifd0, g, 1, compression, bits);
    const pages = await countPages(r, first, ifd0.next, g);

    const shape = [g.height, g.width];
    if (pages > 1) shape.unshift(pages);
    if (g.spp > 1) shape.push(g.spp);
    const info: TiffInfo = {
      bigTiff: r.big,
      littleEndian: r.le,
      pages,
      width: g.width,
      height: g.height,
      samplesPerPixel: g.spp,
      bitsPerSample: bits,
      sampleFormat,
      compression,
      tiled: chunks.tiled,
      chunkOffsets: chunks.offsets,
      chunkByteCounts: chunks.counts,
      tileWidth: chunks.tileWidth,
      tileHeight: chunks.tileHeight,
      fileSize: size,
      shape,
    };
    checkDecodeBudget(info, limits.maxDecodedBytes);
    return info;
  } finally {
    await fh.close();
  }
}

/** Reads the byte order and the classic or BigTIFF header into `r`; returns the first IFD's offset. */
async function readHeader(r: Reader): Promise<number> {
  const { size } = r;
  const head = await r.bytes(0, Math.min(16, size), 'the header');
  const order = head.subarray(0, 2).toString('latin1');
  if (order !== 'II' && order !== 'MM') throw new TiffError('not-tiff', describeMagic(head));
  r.le = order === 'II';
  if (head.length < 8)
    throw tiffFault('truncated', `the file is only ${size} bytes, too short for a TIFF header`);
  const magic = r.u16(head, 2);
  if (magic !== 42 && magic !== 43) throw new TiffError('not-tiff', describeMagic(head));
  r.big = magic === 43;
  let first: number;
  if (r.big) {
    if (head.length < 16)
      throw tiffFault('truncated', `the file is only ${size} bytes, too short for a BigTIFF header`);
    if (r.u16(head, 4) !== 8)
      throw tiffFault('corrupt', `BigTIFF header declares offsets of ${r.u16(head, 4)} bytes (expected 8)`);
    first = r.u64(head, 8);
  } else {
    first = r.u32(head, 4);
  }
  if (first === 0)
    throw tiffFault('corrupt', 'the header points to no image directory (first IFD offset is 0)');
  if (first >= size) {
    throw tiffFault(
      'truncated',
      `the first image directory is at offset ${formatCount(first)}, past the end of the file (${formatCount(size)} bytes)`,
    );
  }
  return first;
}

/** The first page's bits per sample and sample format, refusing what the decoders do not read. */
async function sampleType(
  r: Reader,
  ifd0: Ifd,
): Promise<{ bits: number; sampleFormat: TiffInfo['sampleFormat'] }> {
  const bitsList = (await values(r, ifd0, 258, 1)) ?? [1];
  const bits = bitsList[0];
  if (bitsList.some((b) => b !== bits)) {
    throw tiffFault(
      'unsupported',
      `samples of different bit depths in one pixel (${bitsList.join(', ')} bits)`,
    );
  }
  const fmtCode = (await one(r, ifd0, 339, 1)) ?? 1;
  const sampleFormat =
    fmtCode === 1 || fmtCode === 4 ? 'uint' : fmtCode === 2 ? 'int' : fmtCode === 3 ? 'float' : undefined;
  const supported =
    sampleFormat === 'float'
      ? bits === 32
      : sampleFormat !== undefined && (bits === 8 || bits === 16 || bits === 32);
  if (!supported) {
    const what =
      fmtCode === 5 || fmtCode === 6
        ? `complex ${bits}-bit samples`
        : sampleFormat === undefined
          ? `sample format ${fmtCode}`
          : `${bits}-bit ${sampleFormat === 'float' ? 'floating-point' : sampleFormat === 'int' ? 'signed integer' : 'integer'} samples`;
    throw tiffFault(
      'unsupported',
      `${what}; this server reads 8-, 16- and 32-bit integer and 32-bit float images`,
    );
  }
  return { bits, sampleFormat: sampleFormat! };
}

/**
 * Walks the rest of the IFD chain from `next`: counts the pages of the first page's geometry,
 * checks their strips or tiles lie inside the file, and refuses a loop or an endless chain.
 */
async function countPages(r: Reader, first: number, next: number, g: PageGeometry): Promise<number> {
  const seen = new Set<number>([first]);
  let pages = 1;
  let prev = first;
  let index = 1;
  while (next !== 0) {
    index++;
    if (next === prev)
      throw tiffFault(
        'corrupt',
        `IFD at offset ${formatCount(prev)} points back to itself (the page chain loops)`,
      );
    if (seen.has(next)) {
      throw tiffFault(
        'corrupt',
        `the page chain loops: IFD at offset ${formatCount(prev)} points back to the earlier IFD at offset ${formatCount(next)}`,
      );
    }
    if (index > MAX_IFDS) throw tiffFault('corrupt', `more than ${formatCount(MAX_IFDS)} image directories`);
    seen.add(next);
    const ifd = await readIfd(r, next, index);
    const gi = await geometry(r, ifd, index);
    if (!gi.reduced && gi.width === g.width && gi.height === g.height && gi.spp === g.spp) {
      pages++;
      const bi = (await one(r, ifd, 258, index)) ?? 1;
      await checkChunks(r, ifd, gi, index, (await one(r, ifd, 259, index)) ?? 1, bi);
    }
    prev = next;
    next = ifd.next;
  }
  return pages;
}
