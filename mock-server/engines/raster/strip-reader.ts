/**
 * Our own decoder for the strips of a TIFF's first page, used where libvips will not give the
 * true values: it clamps signed 8- and 16-bit samples to 0 (it treats them as unsigned grey).
 *
 *   readFirstPageSamples(path, info): Promise<{ samples, channels }>
 *
 * Handles stripped (not tiled) pages, compression none (1), LZW (5), deflate (8, 32946) and
 * PackBits (32773), predictor 1 or 2 (horizontal differencing), either planar configuration.
 * Returns interleaved samples in a typed array of the TIFF's sample type.
 */
import { open } from 'node:fs/promises';
import { createInflate } from 'node:zlib';
import { TiffError } from './tiff-error.js';
import type { TiffInfo } from './tiff-inspect.js';

export type SampleArray =
  Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array;

/** TIFF LZW decoder (MSB-first codes, 9-12 bits, early change). */
export function lzwDecode(src: Uint8Array, expected: number): Uint8Array {
  const out = new Uint8Array(expected);
  let op = 0;
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const length = new Int32Array(4096);
  for (let i = 0; i < 256; i++) {
    suffix[i] = i;
    length[i] = 1;
    prefix[i] = -1;
  }
  let next = 258;
  let nbits = 9;
  let bitPos = 0;
  const totalBits = src.length * 8;
  let old = -1;
  const emit = (code: number): number => {
    const len = length[code];
    let c = code;
    const end = Math.min(op + len, expected);
    for (let k = op + len - 1; k >= op; k--) {
      if (k < end) out[k] = suffix[c];
      c = prefix[c];
    }
    op = end;
    let first = code;
    while (prefix[first] !== -1) first = prefix[first];
    return suffix[first];
  };
  while (op < expected && bitPos + nbits <= totalBits) {
    let code = 0;
    for (let i = 0; i < nbits; i++) {
      const bit = bitPos + i;
      code = (code << 1) | ((src[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    bitPos += nbits;
    if (code === 257) break;
    if (code === 256) {
      next = 258;
      nbits = 9;
      old = -1;
      continue;
    }
    if (old === -1) {
      if (code > 255) throw new Error(`LZW: first code after a clear is ${code}`);
      emit(code);
      old = code;
      continue;
    }
    let firstChar: number;
    if (code < next) {
      firstChar = emit(code);
      if (next < 4096) {
        prefix[next] = old;
        suffix[next] = firstChar;
        length[next] = length[old] + 1;
        next++;
      }
    } else if (code === next) {
      let f = old;
      while (prefix[f] !== -1) f = prefix[f];
      firstChar = suffix[f];
      prefix[next] = old;
      suffix[next] = firstChar;
      length[next] = length[old] + 1;
      next++;
      emit(code);
    } else {
      throw new Error(`LZW: code ${code} is not in the table`);
    }
    old = code;
    if (next + 1 >= 1 << nbits && nbits < 12) nbits++;
  }
  return out;
}

function packBitsDecode(src: Uint8Array, expected: number): Uint8Array {
  const out = new Uint8Array(expected);
  let i = 0;
  let o = 0;
  while (i < src.length && o < expected) {
    const n = src[i] > 127 ? src[i] - 256 : src[i];
    i++;
    if (n >= 0) {
      for (let k = 0; k <= n && o < expected; k++) out[o++] = src[i + k];
      i += n + 1;
    } else if (n !== -128) {
      for (let k = 0; k < 1 - n && o < expected; k++) out[o++] = src[i];
      i++;
    }
  }
  return out;
}

/**
 * The first `expected` bytes a deflate strip inflates to, and no more: a strip may hold more rows
 * than the page has left (the last strip of a writer that pads it to full height), which libtiff
 * reads by taking the rows it needs, as this does. Inflating stops there, so a few KB that would
 * inflate to gigabytes cost `expected` bytes (and one chunk), never more.
 */
export async function inflateAtMost(src: Uint8Array, expected: number): Promise<Uint8Array> {
  const out = new Uint8Array(expected);
  let filled = 0;
  const inflate = createInflate({ chunkSize: 64 * 1024 });
  inflate.end(src);
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      const take = Math.min(chunk.length, expected - filled);
      out.set(chunk.subarray(0, take), filled);
      filled += take;
      if (filled >= expected) break;
    }
  } finally {
    inflate.destroy();
  }
  return filled === expected ? out : out.subarray(0, filled);
}

async function decompress(compression: number, src: Uint8Array, expected: number): Promise<Uint8Array> {
  switch (compression) {
    case 1:
      return src.subarray(0, expected);
    case 5:
      return lzwDecode(src, expected);
    case 8:
    case 32946:
      return inflateAtMost(src, expected);
    case 32773:
      return packBitsDecode(src, expected);
    default:
      throw new TiffError(
        'unsupported',
        `unsupported: compression ${compression} with signed integer samples`,
      );
  }
}

export async function readFirstPageSamples(
  path: string,
  info: TiffInfo,
): Promise<{ samples: SampleArray; channels: number }> {
  if (info.tiled)
    throw new TiffError(
      'unsupported',
      'unsupported: tiled TIFF with signed integer samples; save it with strips or as unsigned or float samples',
    );
  const bytesPer = info.bitsPerSample / 8;
  const spp = info.samplesPerPixel;
  const separate = info.planarConfig === 2 && spp > 1;
  const rowSamples = info.width * (separate ? 1 : spp);
  const rowBytes = rowSamples * bytesPer;
  const stripsPerPlane = Math.ceil(info.height / info.rowsPerStrip);
  const raw = new Uint8Array(info.width * info.height * spp * bytesPer);
  const planeBytes = info.width * info.height * bytesPer;
  const fh = await open(path, 'r');
  try {
    for (let s = 0; s < info.chunkOffsets.length; s++) {
      const plane = separate ? Math.floor(s / stripsPerPlane) : 0;
      const firstRow = (s % stripsPerPlane) * info.rowsPerStrip;
      const rows = Math.min(info.rowsPerStrip, info.height - firstRow);
      const expected = rows * rowBytes;
      const src = Buffer.alloc(info.chunkByteCounts[s]);
      await fh.read(src, 0, src.length, info.chunkOffsets[s]);
      let data: Uint8Array;
      try {
        data = await decompress(info.compression, src, expected);
      } catch (err) {
        if (err instanceof TiffError) throw err;
        throw new TiffError(
          'corrupt',
          `corrupt: strip ${s + 1} of ${info.chunkOffsets.length} does not decompress to its ${expected} bytes (${(err as Error).message})`,
        );
      }
      if (data.length < expected) {
        const padded = new Uint8Array(expected);
        padded.set(data);
        data = padded;
      }
      raw.set(data.subarray(0, expected), (separate ? plane * planeBytes : 0) + firstRow * rowBytes);
    }
  } finally {
    await fh.close();
  }
  // To native numbers.
  const n = info.width * info.height * spp;
  const dv = new DataView(raw.buffer);
  const le = info.littleEndian;
  const planar: SampleArray =
    info.bitsPerSample === 8
      ? info.sampleFormat === 'int'
        ? new Int8Array(raw.buffer)
        : raw
      : info.bitsPerSample === 16
        ? info.sampleFormat === 'int'
          ? Int16Array.from({ length: n }, (_, i) => dv.getInt16(i * 2, le))
          : Uint16Array.from({ length: n }, (_, i) => dv.getUint16(i * 2, le))
        : info.sampleFormat === 'float'
          ? Float32Array.from({ length: n }, (_, i) => dv.getFloat32(i * 4, le))
          : info.sampleFormat === 'int'
            ? Int32Array.from({ length: n }, (_, i) => dv.getInt32(i * 4, le))
            : Uint32Array.from({ length: n }, (_, i) => dv.getUint32(i * 4, le));
  if (info.predictor === 2) {
    const stride = separate ? 1 : spp;
    const rowLen = separate ? info.width : info.width * spp;
    const rowsTotal = separate ? info.height * spp : info.height;
    for (let r = 0; r < rowsTotal; r++) {
      const base = r * rowLen;
      for (let i = stride; i < rowLen; i++) planar[base + i] += planar[base + i - stride];
    }
  } else if (info.predictor !== 1) {
    throw new TiffError(
      'unsupported',
      `unsupported: predictor ${info.predictor} with signed integer samples`,
    );
  }
  if (!separate) return { samples: planar, channels: spp };
  const Ctor = planar.constructor as new (n: number) => SampleArray;
  const inter = new Ctor(n);
  const px = info.width * info.height;
  for (let c = 0; c < spp; c++) for (let p = 0; p < px; p++) inter[p * spp + c] = planar[c * px + p];
  return { samples: inter, channels: spp };
}
