import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import JSZip from 'jszip';
import sharp from 'sharp';

/** Small edits of export files, for the deliberately broken builds in sabotage-catalogue.ts. */

/** Rewrites some columns of every row of a CSV with a header, keeping its quoting and CRLF. */
export function editCsv(bytes: Buffer, edit: (row: Record<string, string>) => void): Buffer {
  const [header, ...rows] = parse(bytes, { bom: true }) as string[][];
  let changed = false;
  const edited = rows.map((cells) => {
    const row = Object.fromEntries(header.map((h, i) => [h, cells[i]]));
    edit(row);
    const after = header.map((h) => row[h]);
    changed ||= after.some((cell, i) => cell !== cells[i]);
    return after;
  });
  // An answer the edit left alone goes out as it came: written again, a one-column file of empty
  // cells would become blank lines, a second defect the sabotage did not mean to plant.
  if (!changed) return bytes;
  return Buffer.from(stringify([header, ...edited], { record_delimiter: '\r\n' }));
}

/** The same PNG upside down. */
export function flipPng(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes).flip().png().toBuffer();
}

/** Every traced ROI of an ImageJ zip with its outline moved one pixel right, its header bounds kept. */
export async function shiftRoiOutlines(bytes: Buffer): Promise<Buffer> {
  const zip = await JSZip.loadAsync(bytes);
  const out = new JSZip();
  for (const entry of Object.values(zip.files)) {
    const roi = Buffer.from(await entry.async('uint8array'));
    const n = roi.readUInt16BE(16);
    for (let i = 0; i < n; i++) roi.writeInt16BE(roi.readInt16BE(64 + 2 * i) + 1, 64 + 2 * i);
    out.file(entry.name, roi, { compression: 'DEFLATE' });
  }
  return out.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}
