/**
 * The two TIFF decompressors our own chunk reader (chunk-slices.ts) needs beside node:zlib's
 * inflate: LZW and PackBits, each decoding one whole chunk to at most `expected` bytes; the answer
 * is as long as what the source held, so a short source gives a shorter answer.
 *
 *   lzwDecode(src, expected): Uint8Array          throws on a code not in the table
 *   packBitsDecode(src, expected): Uint8Array
 */

/** TIFF LZW decoder (MSB-first codes, 9-12 bits, early change). */
export function lzwDecode(src: Uint8Array, expected: number): Uint8Array {
  const out = new Uint8Array(expected);
  let op = 0;
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const length = new Int32Array(4096);
  // The first byte of each code's string, so that it is not found by walking the prefixes.
  const firstOf = new Uint8Array(4096);
  for (let i = 0; i < 256; i++) {
    suffix[i] = i;
    length[i] = 1;
    prefix[i] = -1;
    firstOf[i] = i;
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
    return firstOf[code];
  };
  while (op < expected && bitPos + nbits <= totalBits) {
    // The code's nbits (at most 12) from bitPos, most significant first, out of a 24-bit window
    // (bytes past the end read as 0; the loop's bound keeps the code itself inside).
    const at = bitPos >> 3;
    const window = ((src[at] << 16) | ((src[at + 1] ?? 0) << 8) | (src[at + 2] ?? 0)) >>> 0;
    const code = (window >>> (24 - nbits - (bitPos & 7))) & ((1 << nbits) - 1);
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
        firstOf[next] = firstOf[old];
        next++;
      }
    } else if (code === next) {
      firstChar = firstOf[old];
      prefix[next] = old;
      suffix[next] = firstChar;
      length[next] = length[old] + 1;
      firstOf[next] = firstChar;
      next++;
      emit(code);
    } else {
      throw new Error(`LZW: code ${code} is not in the table`);
    }
    old = code;
    if (next + 1 >= 1 << nbits && nbits < 12) nbits++;
  }
  return out.subarray(0, op);
}

export function packBitsDecode(src: Uint8Array, expected: number): Uint8Array {
  const out = new Uint8Array(expected);
  let i = 0;
  let o = 0;
  while (i < src.length && o < expected) {
    const n = src[i] > 127 ? src[i] - 256 : src[i];
    i++;
    if (n >= 0) {
      for (let k = 0; k <= n && o < expected && i + k < src.length; k++) out[o++] = src[i + k];
      i += n + 1;
    } else if (n !== -128) {
      if (i >= src.length) break;
      for (let k = 0; k < 1 - n && o < expected; k++) out[o++] = src[i];
      i++;
    }
  }
  return out.subarray(0, o);
}
