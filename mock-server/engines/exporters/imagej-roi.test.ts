import { describe, expect, it } from 'vitest';
import { encodeTracedRoi } from './imagej-roi.js';
import { HAND_RESULT } from '../../../test-support/exporters/fixtures.js';

const u16 = (b: Uint8Array, o: number) => (b[o] << 8) | b[o + 1];
const i32 = (b: Uint8Array, o: number) => new DataView(b.buffer, b.byteOffset).getInt32(o);

describe('encodeTracedRoi (RoiEncoder v228 layout)', () => {
  it('writes header, relative coordinates, header2 and the UTF-16BE name at the documented offsets', () => {
    const bytes = encodeTracedRoi(HAND_RESULT.objects[1].outline, '0002-0009'); // the L: x 8..11, y 1..4
    const n = 6;
    expect(bytes.length).toBe(64 + 4 * n + 64 + 2 * 9);
    expect(String.fromCharCode(...bytes.slice(0, 4))).toBe('Iout');
    expect(u16(bytes, 4)).toBe(228);
    expect(bytes[6]).toBe(8);
    expect(bytes[7]).toBe(0);
    expect([u16(bytes, 8), u16(bytes, 10), u16(bytes, 12), u16(bytes, 14)]).toEqual([1, 8, 4, 11]); // top left bottom right
    expect(u16(bytes, 16)).toBe(n);
    expect([...bytes.slice(18, 56)].every((b) => b === 0)).toBe(true); // no line, stroke, colour, options
    expect(i32(bytes, 56)).toBe(0); // position
    expect(i32(bytes, 60)).toBe(64 + 4 * n); // header2 offset
    const xs = Array.from({ length: n }, (_, i) => u16(bytes, 64 + 2 * i));
    const ys = Array.from({ length: n }, (_, i) => u16(bytes, 64 + 2 * n + 2 * i));
    expect(xs).toEqual([0, 1, 1, 3, 3, 0]);
    expect(ys).toEqual([0, 0, 2, 2, 3, 3]);
    const h2 = 64 + 4 * n;
    expect(i32(bytes, h2 + 16)).toBe(h2 + 64); // name offset
    expect(i32(bytes, h2 + 20)).toBe(9); // name length in chars
    const rest = [...bytes.slice(h2, h2 + 64)];
    rest.splice(16, 8);
    expect(rest.every((b) => b === 0)).toBe(true);
    expect(
      Buffer.from(bytes.slice(h2 + 64))
        .swap16()
        .toString('utf16le'),
    ).toBe('0002-0009');
  });

  it('writes non-ASCII names as UTF-16 code units (surrogate pairs kept)', () => {
    const bytes = encodeTracedRoi(HAND_RESULT.objects[0].outline, 'µ🧫');
    const h2 = 64 + 16;
    expect(i32(bytes, h2 + 20)).toBe(3);
    expect([...bytes.slice(h2 + 64)]).toEqual([0x00, 0xb5, 0xd8, 0x3e, 0xdd, 0xeb]);
  });

  it('keeps the vertex order (ImageJ perimeter depends on the start vertex)', () => {
    const ring = HAND_RESULT.objects[2].outline;
    const rotated = [...ring.slice(3), ...ring.slice(0, 3)];
    const a = encodeTracedRoi(ring, 'r');
    const b = encodeTracedRoi(rotated, 'r');
    expect(u16(a, 64)).toBe(0);
    expect(u16(b, 64)).toBe(ring[3][0] - 10);
    expect(Buffer.compare(a, b)).not.toBe(0);
  });

  it('refuses outlines ImageJ cannot read back as a traced ROI', () => {
    expect(() =>
      encodeTracedRoi(
        [
          [0, 0],
          [1, 0],
        ],
        'x',
      ),
    ).toThrow(/3 vertices/);
    expect(() =>
      encodeTracedRoi(
        [
          [0, 0],
          [1.5, 0],
          [1, 1],
        ],
        'x',
      ),
    ).toThrow(/integer/);
    expect(() =>
      encodeTracedRoi(
        [
          [0, 0],
          [60536, 0],
          [60536, 1],
          [0, 1],
        ],
        'x',
      ),
    ).toThrow(/60535/);
    expect(() =>
      encodeTracedRoi(
        [
          [-1, 0],
          [1, 0],
          [1, 1],
        ],
        'x',
      ),
    ).toThrow(/integer in 0\.\.60535/);
  });
});
