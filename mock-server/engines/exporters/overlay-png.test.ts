import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { LabelImage } from '../segmentation/types.js';
import { OverlayOptionError } from './overlay-options.js';
import { overlayPng, overlaySize, type OverlayBackground } from './overlay-png.js';
import {
  HAND_HEIGHT,
  HAND_PIXELS,
  HAND_RESULT,
  HAND_WIDTH,
  labelImageOf,
  objectFromPixels,
  rectPixels,
} from '../../../test-support/exporters/fixtures.js';
import { randomResult } from '../../../test-support/exporters/random-result.js';

function greyBackground(width: number, height: number, value?: number): OverlayBackground {
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = value ?? (i * 37 + Math.floor(i / width) * 11) % 251;
  return { width, height, channels: 1, data };
}

async function decode(png: Buffer): Promise<{ width: number; height: number; data: Buffer }> {
  const meta = await sharp(png).metadata();
  expect(meta.format).toBe('png');
  expect(meta.channels).toBe(3);
  expect(meta.depth).toBe('uchar');
  expect(meta.hasAlpha).toBe(false);
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

function isEdge(labels: LabelImage, x: number, y: number): boolean {
  const { width, height } = labels;
  const l = labels.labels[y * width + x];
  const at = (cx: number, cy: number) =>
    cx < 0 || cy < 0 || cx >= width || cy >= height ? -1 : labels.labels[cy * width + cx];
  return at(x - 1, y) !== l || at(x + 1, y) !== l || at(x, y - 1) !== l || at(x, y + 1) !== l;
}

/** Every pixel at full size: outline colour on a cell's edge pixels, blend inside, background elsewhere. */
function expectFullSizeOverlay(
  image: { width: number; height: number; data: Buffer },
  bg: OverlayBackground,
  labels: LabelImage,
  rgb: [number, number, number],
  opacity: number,
): { outline: number; fill: number; background: number } {
  const counts = { outline: 0, fill: 0, background: 0 };
  const wrong: string[] = [];
  for (let y = 0; y < labels.height; y++) {
    for (let x = 0; x < labels.width; x++) {
      const p = y * labels.width + x;
      const got = [...image.data.subarray(3 * p, 3 * p + 3)];
      const base = [0, 1, 2].map((k) => bg.data[bg.channels * p + (bg.channels === 3 ? k : 0)]);
      let want: number[];
      if (labels.labels[p] === 0) {
        want = base;
        counts.background++;
      } else if (isEdge(labels, x, y)) {
        want = rgb;
        counts.outline++;
      } else {
        want = base.map((v, k) => Math.round(v * (1 - opacity) + rgb[k] * opacity));
        counts.fill++;
      }
      // one expect() for the whole image: one per pixel took seconds
      if ((got.length !== 3 || got.some((v, k) => v !== want[k])) && wrong.length < 20)
        wrong.push(`pixel (${x}, ${y}) label ${labels.labels[p]}: ${got.join(',')}, want ${want.join(',')}`);
    }
  }
  expect(wrong).toEqual([]);
  return counts;
}

describe('overlayPng', () => {
  it('hand fixtures: 8-bit RGB of the image size, outline pixels yellow, everything else unchanged', async () => {
    const bg = greyBackground(HAND_WIDTH, HAND_HEIGHT);
    const image = await decode(await overlayPng(bg, HAND_RESULT, {}));
    expect([image.width, image.height]).toEqual([HAND_WIDTH, HAND_HEIGHT]);
    const counts = expectFullSizeOverlay(
      image,
      bg,
      labelImageOf(HAND_WIDTH, HAND_HEIGHT, HAND_PIXELS),
      [255, 255, 0],
      0,
    );
    expect(counts).toEqual({ outline: 27, fill: 0, background: 320 - 27 });
  });

  it('translucent fill inside, custom colour, RGB background kept per channel', async () => {
    const pixels = [rectPixels(1, 1, 6, 5), rectPixels(7, 2, 3, 3), rectPixels(0, 7, 4, 3)];
    const result = { width: 12, height: 10, objects: pixels.map((p, i) => objectFromPixels(i + 1, p)) };
    const data = new Uint8Array(12 * 10 * 3);
    for (let i = 0; i < data.length; i++) data[i] = (i * 53) % 256;
    const bg: OverlayBackground = { width: 12, height: 10, channels: 3, data };
    const image = await decode(await overlayPng(bg, result, { outlineColor: '#FF0080', fillOpacity: 0.25 }));
    const counts = expectFullSizeOverlay(image, bg, labelImageOf(12, 10, pixels), [255, 0, 128], 0.25);
    expect(counts.fill).toBe(4 * 3 + 1 + 2 * 1);
  });

  it.each([true, false])('a few hundred random objects at full size (simple blobs: %s)', async (simple) => {
    const { result, labels } = randomResult(4, { simple });
    const bg = greyBackground(result.width, result.height);
    const image = await decode(await overlayPng(bg, result, { fillOpacity: 0.4 }));
    const counts = expectFullSizeOverlay(image, bg, labels, [255, 255, 0], 0.4);
    expect(counts.outline).toBeGreaterThan(1000);
    expect(counts.fill).toBeGreaterThan(100);
  });

  it('caps the longest side at maxSize, keeps the aspect, averages the background', async () => {
    const { result } = randomResult(4); // 200 x 180
    const bg = greyBackground(result.width, result.height, 77);
    const image = await decode(await overlayPng(bg, result, { maxSize: 50, outlineColor: '#00ff00' }));
    expect([image.width, image.height]).toEqual([50, 45]);
    const seen = new Set<string>();
    for (let p = 0; p < 50 * 45; p++) seen.add([...image.data.subarray(3 * p, 3 * p + 3)].join(','));
    expect(seen).toEqual(new Set(['77,77,77', '0,255,0']));
    const unchanged = await decode(await overlayPng(bg, result, { maxSize: 200 }));
    expect([unchanged.width, unchanged.height]).toEqual([200, 180]);
  });

  it('overlaySize rounds the shorter side and never goes below 1', () => {
    expect(overlaySize(200, 180, 50)).toEqual({ width: 50, height: 45 });
    expect(overlaySize(180, 200, 50)).toEqual({ width: 45, height: 50 });
    expect(overlaySize(1000, 3, 10)).toEqual({ width: 10, height: 1 });
    expect(overlaySize(30, 20)).toEqual({ width: 30, height: 20 });
  });

  it('is byte-identical for the same input', async () => {
    const { result } = randomResult(8);
    const bg = greyBackground(result.width, result.height);
    const a = await overlayPng(bg, result, { fillOpacity: 0.3, maxSize: 120 });
    const b = await overlayPng(bg, result, { fillOpacity: 0.3, maxSize: 120 });
    expect(Buffer.compare(a, b)).toBe(0);
  });

  it('draws nothing for an object with an empty outline (a loaded result is not re-traced)', async () => {
    const { result } = randomResult(8);
    const bg = greyBackground(result.width, result.height);
    const withEmpty = { ...result, objects: [...result.objects, { ...result.objects[0], outline: [] }] };
    const options = { fillOpacity: 0.3, maxSize: 120 };
    const png = await overlayPng(bg, withEmpty, options);
    expect(Buffer.compare(png, await overlayPng(bg, result, options))).toBe(0);
  });

  it('rejects bad options with an error naming the parameter and the value', async () => {
    const bg = greyBackground(HAND_WIDTH, HAND_HEIGHT);
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ outlineColor: 'red' }, /outlineColor.*"red"/],
      [{ outlineColor: '#12345' }, /outlineColor.*"#12345"/],
      [{ outlineColor: '#gg0000' }, /outlineColor/],
      [{ fillOpacity: 1.5 }, /fillOpacity.*1\.5/],
      [{ fillOpacity: -0.1 }, /fillOpacity/],
      [{ fillOpacity: Number.NaN }, /fillOpacity/],
      [{ maxSize: 0 }, /maxSize.*0/],
      [{ maxSize: 2.5 }, /maxSize.*2\.5/],
    ];
    for (const [options, message] of bad) {
      const error = await overlayPng(bg, HAND_RESULT, options).catch((e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(OverlayOptionError);
      expect((error as Error).message).toMatch(message);
      expect((error as OverlayOptionError).parameter).toBe(Object.keys(options)[0]);
    }
  });

  it('rejects a background that does not fit the segmentation', async () => {
    await expect(overlayPng(greyBackground(19, 16), HAND_RESULT, {})).rejects.toThrow(/20x16.*19x16/);
    await expect(
      overlayPng({ ...greyBackground(20, 16), data: new Uint8Array(5) }, HAND_RESULT, {}),
    ).rejects.toThrow(/samples/);
  });
});
