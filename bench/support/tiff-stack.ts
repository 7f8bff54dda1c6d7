/**
 * Big uncompressed 16-bit TIFFs written as a stream, never held in memory: a z-stack of N pages of
 * the 2048 x 2048 synthetic fixture (8 MiB of pixels each). Conversion decodes page 1 only, so the
 * upload path is what a bigger file exercises, not a bigger decode.
 *
 * Layout (classic TIFF, little-endian): header, N IFDs of 12 entries each, then N strips, one per
 * page. Offsets stay under 4 GiB for the sizes used here (up to ~2 GB).
 */
import { IFD_ENTRY_BYTES, ifdAt, tiffHead, writeStreamed } from '../../fixtures/generator/streamed-tiff.js';
import { renderPreset } from '../../fixtures/generator/synthetic.js';

const W = 2048;
const H = 2048;
const PAGE_BYTES = W * H * 2;
const ENTRIES = 12;
const IFD_BYTES = 2 + ENTRIES * IFD_ENTRY_BYTES + 4;

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
  const head = tiffHead(dataStart, total);
  for (let p = 0; p < pages; p++)
    ifdAt(
      head,
      8 + p * IFD_BYTES,
      [
        { tag: 254, type: 4, value: 0 }, // NewSubfileType: full resolution
        { tag: 256, type: 4, value: W },
        { tag: 257, type: 4, value: H },
        { tag: 258, type: 3, value: 16 },
        { tag: 259, type: 3, value: 1 }, // no compression
        { tag: 262, type: 3, value: 1 }, // BlackIsZero
        { tag: 273, type: 4, value: dataStart + p * PAGE_BYTES }, // StripOffsets
        { tag: 277, type: 3, value: 1 },
        { tag: 278, type: 4, value: H }, // RowsPerStrip: one strip per page
        { tag: 279, type: 4, value: PAGE_BYTES }, // StripByteCounts
        { tag: 284, type: 3, value: 1 },
        { tag: 339, type: 3, value: 1 }, // SampleFormat uint
      ],
      p + 1 < pages ? 8 + (p + 1) * IFD_BYTES : 0,
    );
  await writeStreamed(file, head, Array.from({ length: pages }, fixturePixels));
  return total;
}
