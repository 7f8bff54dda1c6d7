import { inflateSync } from 'node:zlib';

/** A decoded image as the oracle compares it: 8-bit RGB, row-major, interleaved. */
export interface RgbPixels {
  width: number;
  height: number;
  rgb: Uint8Array;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };
/** Beyond this many pixels an overlay is not decoded: the oracle keeps what it compares. */
const MAX_PIXELS = 16_000_000;

/**
 * The pixels of a PNG of 8-bit grey or RGB samples (alpha dropped), not interlaced; undefined for
 * any other PNG (palette, 16-bit, interlaced) or bytes that are no PNG, which the oracle then
 * leaves alone. Decoding is plain (RFC 2083): inflate the IDAT chunks, undo each row's filter.
 */
export function decodePng(bytes: Buffer): RgbPixels | undefined {
  if (bytes.length < 33 || bytes.readUInt32BE(0) !== 0x89504e47 || bytes.readUInt32BE(4) !== 0x0d0a1a0a)
    return undefined;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (let at = 8; at + 8 <= bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const chunk = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = chunk.readUInt32BE(0);
      height = chunk.readUInt32BE(4);
      channels = chunk[8] === 8 && chunk[12] === 0 ? (CHANNELS[chunk[9]] ?? 0) : 0;
    } else if (type === 'IDAT') data.push(chunk);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  if (!channels || !width || !height || width * height > MAX_PIXELS) return undefined;
  const stride = width * channels;
  let raw: Buffer;
  try {
    // Inflated no further than the rows need: a few kilobytes of IDAT can inflate to gigabytes.
    raw = inflateSync(Buffer.concat(data), { maxOutputLength: height * (stride + 1) });
  } catch {
    return undefined;
  }
  if (raw.length < height * (stride + 1)) return undefined;
  const rows = unfilter(raw, height, stride, channels);
  if (!rows) return undefined;
  const rgb = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++)
    for (let k = 0; k < 3; k++) rgb[3 * p + k] = rows[p * channels + (channels >= 3 ? k : 0)];
  return { width, height, rgb };
}

function unfilter(raw: Buffer, height: number, stride: number, bpp: number): Uint8Array | undefined {
  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = y * stride;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i];
      const a = i >= bpp ? out[line + i - bpp] : 0;
      const b = y > 0 ? out[line - stride + i] : 0;
      const c = i >= bpp && y > 0 ? out[line - stride + i - bpp] : 0;
      let predicted: number;
      if (filter === 0) predicted = 0;
      else if (filter === 1) predicted = a;
      else if (filter === 2) predicted = b;
      else if (filter === 3) predicted = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else return undefined;
      out[line + i] = (x + predicted) & 0xff;
    }
  }
  return out;
}
