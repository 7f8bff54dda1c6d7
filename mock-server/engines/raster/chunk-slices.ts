/**
 * The first page of a TIFF read as a stream of slices: a few rows of one strip or tile at a time,
 * decompressed, in native numbers, predictor undone. What is held at once is one slice (about
 * SLICE_BYTES) plus, for LZW and PackBits, one whole chunk; never the page.
 *
 *   streamingBlocker(info): string | undefined     why this page cannot be read this way, if it cannot
 *   forEachSlice(path, info, visit): Promise<void>  visit(slice) for every slice, band by band
 *
 * A band is one row of chunks (a strip, or a row of tiles); within a band, sample planes come in
 * order (PlanarConfiguration 2), then chunks from left to right, then slices from top to bottom,
 * so a band is complete before the next begins.
 *
 * Compression none (1) is read straight from the file and deflate (8, 32946) is inflated as a
 * stream, both a slice at a time whatever the chunk's size; LZW (5) and PackBits (32773) decode a
 * whole chunk (LZW_CHUNK_MAX at most, else streamingBlocker says so). Predictor 1, 2 (integer
 * samples) and 3 (floating point, libtiff's fpAcc), undone only where libtiff undoes it: after LZW
 * and deflate (it ignores the tag on uncompressed and PackBits chunks). A chunk that decompresses
 * past its rows is read as far as its rows, as libtiff does; one that does not decompress, or to
 * fewer bytes than its rows (libtiff: "Not enough data"), is "corrupt", naming the chunk.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createInflate, inflateSync } from 'node:zlib';
import { lzwDecode, packBitsDecode } from './chunk-decompress.js';
import { TiffError } from './tiff-error.js';
import type { TiffInfo } from './tiff-info.js';

export type SampleArray =
  Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array;

export interface Slice {
  /** Sample plane (0 for contiguous samples, where every sample of a pixel is in the slice). */
  plane: number;
  /** Page coordinates of the slice's first pixel. */
  x: number;
  y: number;
  /** Pixels of each row inside the page (a tile on the right edge is cut) and rows. */
  cols: number;
  rows: number;
  /** Samples from one row to the next in `samples`; samples per pixel in `samples`. */
  stride: number;
  channels: number;
  samples: SampleArray;
}

const SLICE_BYTES = 4 * 1024 * 1024;
/** LZW and PackBits decode a whole chunk: chunks above this are left to libvips. */
export const LZW_CHUNK_MAX = 64 * 1024 * 1024;
const READ_PIECE = 1024 * 1024;

interface Geometry {
  chunkW: number;
  chunkH: number;
  across: number;
  down: number;
  planes: number;
  channels: number;
  bytesPer: number;
  rowBytes: number;
}

function geometry(info: TiffInfo): Geometry {
  const chunkW = info.tiled ? info.tileWidth! : info.width;
  const chunkH = info.tiled ? info.tileHeight! : info.rowsPerStrip;
  const separate = info.planarConfig === 2 && info.samplesPerPixel > 1;
  const channels = separate ? 1 : info.samplesPerPixel;
  const bytesPer = info.bitsPerSample / 8;
  return {
    chunkW,
    chunkH,
    across: Math.ceil(info.width / chunkW),
    down: Math.ceil(info.height / chunkH),
    planes: separate ? info.samplesPerPixel : 1,
    channels,
    bytesPer,
    rowBytes: chunkW * channels * bytesPer,
  };
}

/** libtiff undoes a predictor after these compressions only (LZW, deflate); elsewhere it is 1. */
function predictorOf(info: TiffInfo): number {
  return [5, 8, 32946].includes(info.compression) ? info.predictor : 1;
}

export function streamingBlocker(info: TiffInfo): string | undefined {
  const { compression, sampleFormat } = info;
  if (![1, 5, 8, 32946, 32773].includes(compression)) return `compression ${compression}`;
  const predictor = predictorOf(info);
  const predictorOk =
    predictor === 1 ||
    (predictor === 2 && sampleFormat !== 'float') ||
    (predictor === 3 && sampleFormat === 'float');
  if (!predictorOk) return `predictor ${predictor}`;
  const g = geometry(info);
  if ((compression === 5 || compression === 32773) && g.rowBytes * g.chunkH > LZW_CHUNK_MAX)
    return `${info.tiled ? 'tiles' : 'strips'} of ${g.rowBytes * g.chunkH} bytes in LZW or PackBits`;
  return undefined;
}

export async function forEachSlice(
  path: string,
  info: TiffInfo,
  visit: (slice: Slice) => void,
): Promise<void> {
  const g = geometry(info);
  const unit = info.tiled ? 'tile' : 'strip';
  const fh = await open(path, 'r');
  try {
    for (let band = 0; band < g.down; band++) {
      const y = band * g.chunkH;
      const rows = Math.min(g.chunkH, info.height - y);
      for (let plane = 0; plane < g.planes; plane++) {
        for (let col = 0; col < g.across; col++) {
          const index = plane * g.across * g.down + band * g.across + col;
          const x = col * g.chunkW;
          const cols = Math.min(g.chunkW, info.width - x);
          const where = `${unit} ${index + 1} of ${info.chunkOffsets.length}`;
          const base = { plane, x, cols, stride: g.chunkW * g.channels, channels: g.channels };
          for await (const { first, bytes } of chunkRows(fh, info, g, index, rows, where)) {
            const n = bytes.length / g.rowBytes;
            visit({ ...base, y: y + first, rows: n, samples: toSamples(bytes, info, g, n) });
          }
        }
      }
    }
  } finally {
    await fh.close();
  }
}

/** The first `rows` rows of chunk `index` as raw bytes, a slice of rows at a time. */
async function* chunkRows(
  fh: FileHandle,
  info: TiffInfo,
  g: Geometry,
  index: number,
  rows: number,
  where: string,
): AsyncGenerator<{ first: number; bytes: Uint8Array }> {
  const offset = info.chunkOffsets[index];
  const count = info.chunkByteCounts[index];
  const sliceRows = Math.max(1, Math.floor(SLICE_BYTES / g.rowBytes));
  const expected = rows * g.rowBytes;
  const corrupt = (err: unknown) =>
    err instanceof TiffError
      ? err
      : new TiffError(
          'corrupt',
          `corrupt: ${where} does not decompress to its ${expected} bytes (${(err as Error).message})`,
        );
  if (info.compression === 1) {
    for (let first = 0; first < rows; first += sliceRows) {
      const n = Math.min(sliceRows, rows - first);
      const bytes = new Uint8Array(n * g.rowBytes);
      await fh.read(bytes, 0, bytes.length, offset + first * g.rowBytes);
      yield { first, bytes };
    }
    return;
  }
  if (info.compression === 8 || info.compression === 32946) {
    const whole = await inflatedExactly(fh, offset, count, expected);
    if (whole) {
      yield* wholeChunkSlices(whole, rows, sliceRows, g.rowBytes);
      return;
    }
    let first = 0;
    let slice = new Uint8Array(Math.min(sliceRows, rows) * g.rowBytes);
    let filled = 0;
    const inflate = createInflate({ chunkSize: 64 * 1024 });
    const source = Readable.from(pieces(fh, offset, count));
    source.on('error', (err) => inflate.destroy(err));
    source.pipe(inflate);
    try {
      for await (const chunk of inflate as AsyncIterable<Buffer>) {
        let at = 0;
        while (at < chunk.length && first < rows) {
          const take = Math.min(chunk.length - at, slice.length - filled);
          slice.set(chunk.subarray(at, at + take), filled);
          filled += take;
          at += take;
          if (filled === slice.length) {
            yield { first, bytes: slice };
            first += slice.length / g.rowBytes;
            slice = new Uint8Array(Math.min(sliceRows, rows - first) * g.rowBytes);
            filled = 0;
          }
        }
        if (first >= rows) break;
      }
    } catch (err) {
      throw corrupt(err);
    } finally {
      source.destroy();
      inflate.destroy();
    }
    if (first < rows)
      throw corrupt(new Error(`it ends ${expected - first * g.rowBytes - filled} bytes short`));
    return;
  }
  // LZW and PackBits: a compressed chunk never needs more than 1.5 times its rows (12-bit codes).
  const src = new Uint8Array(Math.min(count, Math.ceil(expected * 1.5) + 4096));
  await fh.read(src, 0, src.length, offset);
  let whole: Uint8Array;
  try {
    whole = info.compression === 5 ? lzwDecode(src, expected) : packBitsDecode(src, expected);
  } catch (err) {
    throw corrupt(err);
  }
  if (whole.length < expected) throw corrupt(new Error(`it ends ${expected - whole.length} bytes short`));
  yield* wholeChunkSlices(whole, rows, sliceRows, g.rowBytes);
}

function* wholeChunkSlices(whole: Uint8Array, rows: number, sliceRows: number, rowBytes: number) {
  for (let first = 0; first < rows; first += sliceRows) {
    const n = Math.min(sliceRows, rows - first);
    yield { first, bytes: whole.subarray(first * rowBytes, (first + n) * rowBytes) };
  }
}

/**
 * A small deflate chunk inflated at once, when it inflates to exactly its rows without an error:
 * most writers cut a page into strips of a few KiB, and a stream per strip costs more than the
 * inflating. Anything else (more bytes, fewer, an error) is null, and the chunk is streamed, which
 * reads it as far as its rows and names what is wrong.
 */
async function inflatedExactly(
  fh: FileHandle,
  offset: number,
  count: number,
  expected: number,
): Promise<Uint8Array | null> {
  if (count > READ_PIECE || expected > SLICE_BYTES) return null;
  const src = new Uint8Array(count);
  const { bytesRead } = await fh.read(src, 0, count, offset);
  try {
    const out = inflateSync(src.subarray(0, bytesRead), { maxOutputLength: expected });
    return out.length === expected ? new Uint8Array(out.buffer, out.byteOffset, out.length) : null;
  } catch {
    return null;
  }
}

async function* pieces(fh: FileHandle, offset: number, count: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < count; at += READ_PIECE) {
    const buf = Buffer.allocUnsafe(Math.min(READ_PIECE, count - at));
    const { bytesRead } = await fh.read(buf, 0, buf.length, offset + at);
    yield buf.subarray(0, bytesRead);
    if (bytesRead < buf.length) return;
  }
}

const IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Raw bytes of `rows` rows to native samples, predictor undone. */
function toSamples(bytes: Uint8Array, info: TiffInfo, g: Geometry, rows: number): SampleArray {
  const n = bytes.length / g.bytesPer;
  const rowSamples = g.chunkW * g.channels;
  const predictor = predictorOf(info);
  if (predictor === 3) return floatPredictor(bytes, rows, rowSamples, g.channels);
  const samples = nativeSamples(bytes, info, n);
  if (predictor === 2) {
    for (let r = 0; r < rows; r++) {
      const base = r * rowSamples;
      for (let i = g.channels; i < rowSamples; i++) samples[base + i] += samples[base + i - g.channels];
    }
  }
  return samples;
}

function nativeSamples(bytes: Uint8Array, info: TiffInfo, n: number): SampleArray {
  const signed = info.sampleFormat === 'int';
  if (info.bitsPerSample === 8) return signed ? new Int8Array(bytes.buffer, bytes.byteOffset, n) : bytes;
  const Ctor =
    info.bitsPerSample === 16
      ? signed
        ? Int16Array
        : Uint16Array
      : info.sampleFormat === 'float'
        ? Float32Array
        : signed
          ? Int32Array
          : Uint32Array;
  const width = info.bitsPerSample / 8;
  // The slices are this module's own buffers, so samples are swapped in place; a copy only where
  // a view would not be aligned.
  const own = bytes.byteOffset % width === 0 ? bytes : bytes.slice();
  if (info.littleEndian !== IS_LITTLE_ENDIAN) swapInPlace(own, width);
  return new Ctor(own.buffer as ArrayBuffer, own.byteOffset, n);
}

function swapInPlace(b: Uint8Array, width: number): void {
  for (let i = 0; i < b.length; i += width) {
    for (let lo = i, hi = i + width - 1; lo < hi; lo++, hi--) {
      const t = b[lo];
      b[lo] = b[hi];
      b[hi] = t;
    }
  }
}

/**
 * Predictor 3 (libtiff's fpAcc): each row is differenced byte by byte across `channels`, and its
 * samples are stored as byte planes, most significant first, whatever the file's byte order.
 */
function floatPredictor(bytes: Uint8Array, rows: number, rowSamples: number, channels: number): Float32Array {
  const out = new Float32Array(rows * rowSamples);
  const bits = new Uint32Array(out.buffer);
  const rowBytes = rowSamples * 4;
  for (let r = 0; r < rows; r++) {
    const row = bytes.subarray(r * rowBytes, (r + 1) * rowBytes);
    for (let i = channels; i < rowBytes; i++) row[i] = (row[i] + row[i - channels]) & 0xff;
    const o = r * rowSamples;
    for (let j = 0; j < rowSamples; j++)
      bits[o + j] =
        ((row[j] << 24) |
          (row[rowSamples + j] << 16) |
          (row[2 * rowSamples + j] << 8) |
          row[3 * rowSamples + j]) >>>
        0;
  }
  return out;
}
