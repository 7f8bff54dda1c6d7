/**
 * Big uncompressed 16-bit TIFFs written as a stream, never held in memory: a z-stack of N pages of
 * the 2048 x 2048 synthetic fixture (8 MiB of pixels each). Conversion decodes page 1 only, so the
 * upload path is what a bigger file exercises, not a bigger decode.
 *
 * Layout (classic TIFF, little-endian): header, N IFDs of 12 entries each, then N strips, one per
 * page. Offsets stay under 4 GiB for the sizes used here (up to ~2 GB).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { renderPreset } from '../../fixtures/generator/synthetic.js';

const W = 2048;
const H = 2048;
const PAGE_BYTES = W * H * 2;
const ENTRIES = 12;
const IFD_BYTES = 2 + ENTRIES * 12 + 4;

let pixels: Buffer | undefined;
function fixturePixels(): Buffer {
  if (!pixels) {
    const data = renderPreset('large-16bit-2048').plane.data as Uint16Array;
    pixels = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  return pixels;
}

/** Pages needed for a file of at least `bytes`. */
export function pagesFor(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / PAGE_BYTES));
}

/** Writes the stack; answers its exact size in bytes. */
export async function writeTiffStack(file: string, pages: number): Promise<number> {
  const dataStart = 8 + pages * IFD_BYTES;
  const total = dataStart + pages * PAGE_BYTES;
  if (total > 0xffffffff) throw new Error('classic TIFF offsets: stay under 4 GiB');
  const head = Buffer.alloc(dataStart);
  head.write('II', 0, 'latin1');
  head.writeUInt16LE(42, 2);
  head.writeUInt32LE(8, 4);
  for (let p = 0; p < pages; p++) {
    let o = 8 + p * IFD_BYTES;
    head.writeUInt16LE(ENTRIES, o);
    o += 2;
    const entry = (tag: number, type: number, value: number) => {
      head.writeUInt16LE(tag, o);
      head.writeUInt16LE(type, o + 2);
      head.writeUInt32LE(1, o + 4);
      if (type === 3) head.writeUInt16LE(value, o + 8);
      else head.writeUInt32LE(value, o + 8);
      o += 12;
    };
    entry(254, 4, 0); // NewSubfileType: full resolution
    entry(256, 4, W);
    entry(257, 4, H);
    entry(258, 3, 16);
    entry(259, 3, 1); // no compression
    entry(262, 3, 1); // BlackIsZero
    entry(273, 4, dataStart + p * PAGE_BYTES); // StripOffsets
    entry(277, 3, 1);
    entry(278, 4, H); // RowsPerStrip: one strip per page
    entry(279, 4, PAGE_BYTES); // StripByteCounts
    entry(284, 3, 1);
    entry(339, 3, 1); // SampleFormat uint
    head.writeUInt32LE(p + 1 < pages ? 8 + (p + 1) * IFD_BYTES : 0, o);
  }
  const out = createWriteStream(file);
  const write = async (b: Buffer) => {
    if (!out.write(b)) await once(out, 'drain');
  };
  await write(head);
  const px = fixturePixels();
  for (let p = 0; p < pages; p++) await write(px);
  out.end();
  await once(out, 'finish');
  return total;
}
