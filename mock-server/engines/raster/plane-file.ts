/**
 * A decoded grey plane on disk, so the segmentation of an image reads what its conversion
 * decoded instead of decoding the TIFF again.
 *
 *   bytes 0-7    "CSPLANE1"
 *   bytes 8-11   width, uint32 little-endian
 *   bytes 12-15  height, uint32 little-endian
 *   byte 16      bits per sample: 8 or 16 (unsigned)
 *   bytes 17-23  zero
 *   bytes 24-    the samples, row-major, little-endian
 *
 * A file whose header or length does not match is refused (PlaneFileError), never half-read.
 */
import { open, readFile } from 'node:fs/promises';
import type { Plane, PlaneData } from './plane.js';

const MAGIC = 'CSPLANE1';
const HEADER_BYTES = 24;

export class PlaneFileError extends Error {
  override readonly name = 'PlaneFileError';
}

/**
 * A plane file refused as unreadable, recognised by name: from a decoder child it comes back as an
 * error carrying the name and message only.
 */
export function isUnreadablePlane(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'PlaneFileError';
}

export async function writePlaneFile(file: string, plane: Plane): Promise<void> {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(plane.width, 8);
  header.writeUInt32LE(plane.height, 12);
  header.writeUInt8(plane.bitsPerSample, 16);
  const samples = littleEndianBytes(plane.data);
  // Header and samples written one after the other: joined, they would be a copy of the plane.
  const fh = await open(file, 'w');
  try {
    await fh.writeFile(header);
    await fh.writeFile(samples);
  } finally {
    await fh.close();
  }
}

export async function readPlaneFile(file: string): Promise<Plane> {
  const bytes = await readFile(file);
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== MAGIC)
    throw new PlaneFileError(`${file} is not a decoded plane`);
  const width = bytes.readUInt32LE(8);
  const height = bytes.readUInt32LE(12);
  const bits = bytes.readUInt8(16);
  if (bits !== 8 && bits !== 16) throw new PlaneFileError(`${file}: ${bits} bits per sample`);
  const sampleBytes = width * height * (bits / 8);
  if (bytes.length !== HEADER_BYTES + sampleBytes)
    throw new PlaneFileError(
      `${file}: ${bytes.length} bytes, a ${width}x${height} plane needs ${HEADER_BYTES + sampleBytes}`,
    );
  // A view of the bytes read where the samples are aligned (a large read has a buffer of its own,
  // and the header keeps them at a multiple of 4); a copy otherwise: typed arrays need alignment.
  const start = bytes.byteOffset + HEADER_BYTES;
  const samples =
    start % 4 === 0
      ? new Uint8Array(bytes.buffer, start, sampleBytes)
      : Uint8Array.from(bytes.subarray(HEADER_BYTES));
  return { width, height, bitsPerSample: bits, data: fromLittleEndian(samples, bits) };
}

function littleEndianBytes(data: PlaneData): Uint8Array {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return IS_LITTLE_ENDIAN || data.BYTES_PER_ELEMENT === 1 ? bytes : swapped(bytes, data.BYTES_PER_ELEMENT);
}

function fromLittleEndian(samples: Uint8Array, bits: 8 | 16): PlaneData {
  if (bits === 8) return samples;
  const bytes = IS_LITTLE_ENDIAN ? samples : swapped(samples, 2);
  return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
}

const IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function swapped(bytes: Uint8Array, width: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += width)
    for (let j = 0; j < width; j++) out[i + j] = bytes[i + width - 1 - j];
  return out;
}
