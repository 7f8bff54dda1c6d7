import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { percentileRange, stretchToUint8 } from './contrast-stretch.js';
import type { Plane } from './plane.js';
import { writePreviews } from './previews.js';

const dir = mkdtempSync(join(tmpdir(), 'previews-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stretchToUint8', () => {
  it('maps the 0.5 and 99.5 percentiles of a 16-bit plane to 0 and 255', () => {
    // 1000 pixels: values 1000..1999, plus outliers that the percentiles must ignore.
    const data = new Uint16Array(1000);
    for (let i = 0; i < 1000; i++) data[i] = 1000 + i;
    data[0] = 0;
    data[999] = 65535;
    const plane: Plane = { width: 1000, height: 1, bitsPerSample: 16, data };
    const { low, high } = percentileRange(plane);
    expect(low).toBe(1004);
    expect(high).toBe(1994);
    const out = stretchToUint8(plane);
    expect(out[500]).toBe(Math.round(((1500 - 1004) * 255) / (1994 - 1004)));
    expect(out[0]).toBe(0);
    expect(out[999]).toBe(255);
    expect(out[4]).toBe(0);
  });
  it('handles 8-bit, float and flat planes', () => {
    const p8: Plane = {
      width: 256,
      height: 1,
      bitsPerSample: 8,
      data: Uint8Array.from({ length: 256 }, (_, i) => i),
    };
    const o8 = stretchToUint8(p8, 0, 100);
    expect(Array.from(o8)).toEqual(Array.from(p8.data));
    const flat: Plane = { width: 4, height: 1, bitsPerSample: 16, data: new Uint16Array(4).fill(300) };
    expect(Array.from(stretchToUint8(flat))).toEqual([0, 0, 0, 0]);
  });
});

describe('writePreviews', () => {
  it('writes a full-size grey PNG equal to the stretch, and a thumbnail within bounds', async () => {
    const w = 600;
    const h = 300;
    const data = Uint16Array.from({ length: w * h }, (_, i) => (i % w) * 50);
    const plane: Plane = { width: w, height: h, bitsPerSample: 16, data };
    await writePreviews(plane, join(dir, 'p.png'), join(dir, 't.png'));
    expect(await sharp(join(dir, 'p.png')).metadata()).toMatchObject({ width: w, height: h, channels: 1 });
    expect(await sharp(join(dir, 't.png')).metadata()).toMatchObject({ width: 256, height: 128 });
    const { data: px, info } = await sharp(join(dir, 'p.png'))
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(1);
    expect(px.equals(Buffer.from(stretchToUint8(plane)))).toBe(true);
  });
  it('never enlarges a small image', async () => {
    const plane: Plane = { width: 10, height: 5, bitsPerSample: 8, data: new Uint8Array(50) };
    await writePreviews(plane, join(dir, 'sp.png'), join(dir, 'st.png'));
    expect(await sharp(join(dir, 'st.png')).metadata()).toMatchObject({ width: 10, height: 5 });
  });
});
