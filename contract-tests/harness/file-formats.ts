import { parse as parseCsv } from 'csv-parse/sync';
import JSZip from 'jszip';

/** Reads just enough of each export format to check it, without the mock's code. */

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

export interface RoiHeader {
  name: string;
  version: number;
  type: number;
  top: number;
  left: number;
  bottom: number;
  right: number;
  nCoordinates: number;
}

/** The 64-byte header of an ImageJ .roi file (ij/io/RoiDecoder.java). */
export function roiHeader(entryName: string, bytes: Uint8Array): RoiHeader {
  const view = Buffer.from(bytes);
  if (view.toString('latin1', 0, 4) !== 'Iout')
    throw new Error(`${entryName}: not an ImageJ ROI (no "Iout" magic)`);
  return {
    name: entryName,
    version: view.readUInt16BE(4),
    type: view[6],
    top: view.readInt16BE(8),
    left: view.readInt16BE(10),
    bottom: view.readInt16BE(12),
    right: view.readInt16BE(14),
    nCoordinates: view.readUInt16BE(16),
  };
}

export async function zipRois(bytes: Buffer): Promise<RoiHeader[]> {
  const zip = await JSZip.loadAsync(bytes);
  const headers: RoiHeader[] = [];
  for (const entry of Object.values(zip.files)) {
    if (entry.dir) continue;
    headers.push(roiHeader(entry.name, await entry.async('uint8array')));
  }
  return headers;
}

/** Twice the signed area of a closed ring (positive: counter-clockwise in RFC 7946's sense). */
export function signedArea2(ring: number[][]): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) sum += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1];
  return sum;
}
