import { parse as parseCsv } from 'csv-parse/sync';

/**
 * Reads just enough of each export format to check it, without the mock's code (ImageJ ROIs:
 * imagej-roi.ts).
 */

export function csvRecords(bytes: Buffer): { header: string[]; rows: Record<string, string>[] } {
  const rows = parseCsv(bytes, { bom: true }) as string[][];
  const [header, ...body] = rows;
  return { header, rows: body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))) };
}

export interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  /** 2 = RGB, 6 = RGBA, 0 = grey. */
  colorType: number;
}

export function pngInfo(bytes: Buffer): PngInfo {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!bytes.subarray(0, 8).equals(signature)) throw new Error('not a PNG: bad signature');
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG: first chunk is not IHDR');
  return {
    width: bytes.readUInt32BE(16),
    height: bytes.readUInt32BE(20),
    bitDepth: bytes[24],
    colorType: bytes[25],
  };
}
