/**
 * The grey plane of a TIFF's first page as libvips (sharp) decodes it whole, then reduced by the
 * rules of decode-plane.ts: an outside judge for the mock's own reader, which the tests hold to it
 * byte for byte, layout by layout. The mock never decodes this way (it would hold the page).
 */
import type { SampleArray } from '../../mock-server/engines/raster/spilled-rows.js';
import sharp from '../../mock-server/engines/raster/libvips.js';
import type { Plane } from '../../mock-server/engines/raster/plane.js';
import { TiffError } from '../../mock-server/engines/raster/tiff-error.js';
import type { TiffInfo } from '../../mock-server/engines/raster/tiff-info.js';

type Depth = 'uchar' | 'char' | 'ushort' | 'short' | 'uint' | 'int' | 'float';

function depthFor(info: TiffInfo): Depth {
  if (info.sampleFormat === 'float') return 'float';
  const signed = info.sampleFormat === 'int';
  if (info.bitsPerSample === 8) return signed ? 'char' : 'uchar';
  if (info.bitsPerSample === 16) return signed ? 'short' : 'ushort';
  return signed ? 'int' : 'uint';
}

function view(buf: Buffer, depth: Depth): SampleArray {
  const { buffer, byteOffset, byteLength } = buf;
  // sharp's buffers may not be aligned for wider types; copy when they are not.
  const aligned = (k: number) =>
    byteOffset % k === 0 ? buffer : buf.buffer.slice(byteOffset, byteOffset + byteLength);
  const off = (k: number) => (byteOffset % k === 0 ? byteOffset : 0);
  switch (depth) {
    case 'uchar':
      return new Uint8Array(buffer, byteOffset, byteLength);
    case 'char':
      return new Int8Array(buffer, byteOffset, byteLength);
    case 'ushort':
      return new Uint16Array(aligned(2), off(2), byteLength / 2);
    case 'short':
      return new Int16Array(aligned(2), off(2), byteLength / 2);
    case 'uint':
      return new Uint32Array(aligned(4), off(4), byteLength / 4);
    case 'int':
      return new Int32Array(aligned(4), off(4), byteLength / 4);
    case 'float':
      return new Float32Array(aligned(4), off(4), byteLength / 4);
  }
}

/** Maximum over the first `colour` of `channels` interleaved channels. */
function maxChannels(
  src: SampleArray,
  channels: number,
  colour: number,
  n: number,
): Float64Array | SampleArray {
  if (channels === 1) return src;
  const Ctor = src.constructor as new (n: number) => SampleArray;
  const out = new Ctor(n);
  for (let p = 0, i = 0; p < n; p++, i += channels) {
    let m = src[i];
    for (let c = 1; c < colour; c++) {
      const v = src[i + c];
      if (v > m || m !== m) m = v;
    }
    out[p] = m;
  }
  return out;
}

function toPlane(grey: SampleArray | Float64Array, info: TiffInfo, width: number, height: number): Plane {
  const n = width * height;
  if (info.bitsPerSample === 8 && info.sampleFormat === 'uint')
    return { width, height, bitsPerSample: 8, data: grey as Uint8Array };
  if (info.bitsPerSample === 16 && info.sampleFormat === 'uint')
    return { width, height, bitsPerSample: 16, data: grey as Uint16Array };
  // 32-bit: rescale finite min..max to 0..65535.
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = grey[i];
    if (Number.isFinite(v)) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  const data = new Uint16Array(n);
  if (max > min) {
    const k = 65535 / (max - min);
    for (let i = 0; i < n; i++) {
      const v = grey[i];
      data[i] = Number.isFinite(v) ? Math.round((v - min) * k) : 0;
    }
  }
  return { width, height, bitsPerSample: 16, data };
}

export async function decodePlaneWithLibvips(path: string, info: TiffInfo): Promise<Plane> {
  const { width, height } = info;
  const n = width * height;
  const depth = depthFor(info);
  try {
    const open = () =>
      sharp(path, {
        page: 0,
        pages: 1,
        limitInputPixels: Math.max(1, width * height),
        failOn: 'error',
        sequentialRead: true,
      });
    const meta = await open().metadata();
    // Without an explicit colourspace sharp would turn grey into 3-channel sRGB.
    const page = open().toColourspace(meta.space ?? 'b-w');
    const { data, info: out } = await page.raw({ depth }).toBuffer({ resolveWithObject: true });
    if (out.width !== width || out.height !== height) {
      throw new TiffError(
        'decode',
        `cannot decode: the decoder produced ${out.width} x ${out.height} pixels, but the file declares ${width} x ${height}`,
      );
    }
    const colour = Math.max(1, meta.hasAlpha ? out.channels - 1 : out.channels);
    return toPlane(maxChannels(view(data, depth), out.channels, colour, n), info, width, height);
  } catch (err) {
    if (err instanceof TiffError) throw err;
    throw new TiffError('decode', `cannot decode: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}
