import { deflateSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { decodePng } from './png.js';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
}

/** A grey PNG of `width` x `height` whose IDAT inflates to `inflated` bytes of zeros. */
function png(width: number, height: number, inflated: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth; colour type 0 (grey), no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(inflated))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

it('decodes a plain PNG, and leaves one whose data inflates past its rows (a bomb) undecoded', () => {
  expect(decodePng(png(4, 2, 2 * 5))).toMatchObject({ width: 4, height: 2 });
  expect(decodePng(png(4, 2, 64 * 1024 * 1024))).toBeUndefined();
});
