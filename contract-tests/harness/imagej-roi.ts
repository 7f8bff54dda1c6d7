import JSZip from 'jszip';

/**
 * ImageJ .roi files decoded in the suite's own code, after ij/io/RoiDecoder.java: a 64-byte
 * big-endian header, the outline's integer coordinates relative to the bounds, and header2 with
 * the ROI's name (UTF-16BE). Only what the checks compare is read.
 */
export interface DecodedRoi {
  /** The zip entry's name, e.g. "0013-0075.roi". */
  entryName: string;
  version: number;
  type: number;
  top: number;
  left: number;
  bottom: number;
  right: number;
  /** Outline vertices in image pixel-corner coordinates. */
  xs: number[];
  ys: number[];
  /** The name stored in header2, when there is one. */
  name?: string;
}

const HEADER_SIZE = 64;
const SUB_PIXEL_RESOLUTION = 128;

export function decodeRoi(entryName: string, bytes: Uint8Array): DecodedRoi {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < HEADER_SIZE || view.toString('latin1', 0, 4) !== 'Iout')
    throw new Error(`${entryName}: not an ImageJ ROI (no "Iout" magic)`);
  const version = view.readUInt16BE(4);
  const top = view.readInt16BE(8);
  const left = view.readInt16BE(10);
  // RoiDecoder: a count of 0 in the short field means the count is the int at offset 18 (large ROIs).
  let n = view.readUInt16BE(16);
  if (n === 0 && view.length >= 22) n = view.readInt32BE(18);
  const options = view.readUInt16BE(50);
  const xs: number[] = [];
  const ys: number[] = [];
  if (HEADER_SIZE + 4 * n > view.length) throw new Error(`${entryName}: ${n} coordinates run past the file`);
  for (let i = 0; i < n; i++) {
    xs.push(left + view.readInt16BE(HEADER_SIZE + 2 * i));
    ys.push(top + view.readInt16BE(HEADER_SIZE + 2 * (n + i)));
  }
  if (options & SUB_PIXEL_RESOLUTION && version >= 222) {
    // Float coordinates follow the integer ones and are the outline ImageJ uses.
    const base = HEADER_SIZE + 4 * n;
    for (let i = 0; i < n; i++) {
      xs[i] = view.readFloatBE(base + 4 * i);
      ys[i] = view.readFloatBE(base + 4 * (n + i));
    }
  }
  return {
    entryName,
    version,
    type: view[6],
    top,
    left,
    bottom: view.readInt16BE(12),
    right: view.readInt16BE(14),
    xs,
    ys,
    name: header2Name(view),
  };
}

/** header2 (offset at byte 60): name offset at +16 and name length in chars at +20. */
function header2Name(view: Buffer): string | undefined {
  const header2 = view.readInt32BE(60);
  if (header2 <= 0 || header2 + 24 > view.length) return undefined;
  const offset = view.readInt32BE(header2 + 16);
  const length = view.readInt32BE(header2 + 20);
  if (offset <= 0 || length <= 0 || offset + 2 * length > view.length) return undefined;
  let name = '';
  for (let i = 0; i < length; i++) name += String.fromCharCode(view.readUInt16BE(offset + 2 * i));
  return name;
}

/**
 * Every .roi entry of a zip, in the zip's own order (the order ImageJ's RoiManager lists them).
 * The entries are inflated to at most `maxBytes` in all (--max-body-bytes): a zip bomb fails the
 * check, not the run.
 */
export async function decodeRoiZip(bytes: Buffer, maxBytes: number): Promise<DecodedRoi[]> {
  const zip = await JSZip.loadAsync(bytes);
  const rois: DecodedRoi[] = [];
  const budget = { left: maxBytes };
  for (const entry of Object.values(zip.files)) {
    if (entry.dir) continue;
    rois.push(decodeRoi(entry.name, await inflateWithin(entry, budget, maxBytes)));
  }
  return rois;
}

/** One entry's bytes, streamed, stopping as soon as the zip's entries pass `maxBytes` together. */
function inflateWithin(
  entry: JSZip.JSZipObject,
  budget: { left: number },
  maxBytes: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const stream = entry.nodeStream('nodebuffer');
    stream
      .on('data', (chunk: Buffer) => {
        budget.left -= chunk.length;
        chunks.push(chunk);
        if (budget.left >= 0) return;
        stream.pause();
        reject(
          new Error(
            `rois.zip: its entries inflate past the ${maxBytes} bytes the suite reads of one answer (--max-body-bytes), at ${entry.name}`,
          ),
        );
      })
      .on('error', reject)
      .on('end', () => resolve(Buffer.concat(chunks)));
  });
}
