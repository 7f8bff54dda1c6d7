/**
 * A page spilled by libvips (libvips-spill.ts) read back a slice of rows at a time, so what is
 * held is one slice (about SLICE_PIXELS pixels), never the page.
 *
 *   readSpillHeader(path): Promise<SpilledPage>
 *   forEachSlice(path, page, visit): Promise<void>     visit(y, rows, samples), top to bottom
 *
 * The file is libvips' own format: a 64-byte header (magic, width, height, bands, sample format,
 * coding...), then the samples, band-interleaved, row after row, in the byte order of the machine
 * that wrote it, which is this one: a file in the other order was not written here and is refused.
 */
import { open } from 'node:fs/promises';
import { TiffError } from './tiff-error.js';

export type SampleArray =
  Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

type SampleArrayType = { new (buffer: ArrayBuffer, offset: number, length: number): SampleArray } & {
  BYTES_PER_ELEMENT: number;
};

/** libvips' band formats by number: uchar, char, ushort, short, uint, int, float, complex, double. */
const BAND_FORMATS: Array<SampleArrayType | undefined> = [
  Uint8Array,
  Int8Array,
  Uint16Array,
  Int16Array,
  Uint32Array,
  Int32Array,
  Float32Array,
  undefined,
  Float64Array,
];

export type SpilledPage = Awaited<ReturnType<typeof readSpillHeader>>;

const HEADER_BYTES = 64;
/** The magic is B6 A6 F2 08 before little-endian samples, 08 F2 A6 B6 before big-endian ones. */
const NATIVE_MAGIC = new Uint8Array(new Uint32Array([0x08f2a6b6]).buffer);
const SLICE_PIXELS = 512 * 1024;

export async function readSpillHeader(path: string) {
  const fh = await open(path, 'r');
  try {
    const head = new Uint8Array(HEADER_BYTES);
    const { bytesRead } = await fh.read(head, 0, HEADER_BYTES, 0);
    const fields = new Int32Array(head.buffer, 0, 8);
    const Samples = BAND_FORMATS[fields[5]];
    const native = NATIVE_MAGIC.every((b, i) => head[i] === b);
    // fields[6] is the coding, 0 for plain samples.
    if (bytesRead < HEADER_BYTES || !native || !Samples || fields[6] !== 0)
      throw new TiffError('decode', 'cannot decode: the decoder wrote a page this server cannot read back');
    return { width: fields[1], height: fields[2], bands: fields[3], Samples };
  } finally {
    await fh.close();
  }
}

export async function forEachSlice(
  path: string,
  page: SpilledPage,
  visit: (y: number, rows: number, samples: SampleArray) => void,
): Promise<void> {
  const rowBytes = page.width * page.bands * page.Samples.BYTES_PER_ELEMENT;
  const sliceRows = Math.max(1, Math.floor(SLICE_PIXELS / page.width));
  const buffer = new ArrayBuffer(Math.min(sliceRows, page.height) * rowBytes);
  const fh = await open(path, 'r');
  try {
    for (let y = 0; y < page.height; y += sliceRows) {
      const rows = Math.min(sliceRows, page.height - y);
      const bytes = new Uint8Array(buffer, 0, rows * rowBytes);
      const { bytesRead } = await fh.read(bytes, 0, bytes.length, HEADER_BYTES + y * rowBytes);
      if (bytesRead < bytes.length)
        throw new TiffError('decode', `cannot decode: the decoder stopped after row ${y} of ${page.height}`);
      visit(y, rows, new page.Samples(buffer, 0, rows * page.width * page.bands));
    }
  } finally {
    await fh.close();
  }
}
