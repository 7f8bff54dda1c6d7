import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';
import { shapeOf, tiffLayout } from './tiff-layout.js';

const corpus = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/corpus');
const expected = JSON.parse(readFileSync(path.join(corpus, 'expected.json'), 'utf8')) as Array<{
  file: string;
  outcome: string;
  shape?: number[];
}>;

describe("the layout a TIFF's directories declare", () => {
  it('gives the shape the fixtures expect of every corpus file that converts, or nothing', () => {
    let read = 0;
    for (const { file, outcome, shape } of expected) {
      if (outcome !== 'ready') continue;
      const layout = tiffLayout(readFileSync(path.join(corpus, file)));
      if (!layout) continue;
      read++;
      expect(shapeOf(layout), file).toEqual(shape);
    }
    // the plain layouts at least: grey of each depth and order, RGB, three pages, BigTIFF
    expect(read).toBeGreaterThanOrEqual(10);
    expect(shapeOf(tiffLayout(readFileSync(path.join(corpus, 'multipage-3.tif')))!)).toEqual([3, 64, 96]);
    expect(shapeOf(tiffLayout(readFileSync(path.join(corpus, 'rgb-8bit.tif')))!)).toEqual([64, 96, 3]);
  });

  it('reads nothing of bytes that are no TIFF, a directory loop or a chain cut short', () => {
    for (const file of [
      'png-renamed.tif',
      'random-bytes.tif',
      'ifd-loop-self.tif',
      'ifd-loop-two-pages.tif',
      'empty.tif',
    ])
      expect(tiffLayout(readFileSync(path.join(corpus, file))), file).toBeUndefined();
    const pages = readFileSync(path.join(corpus, 'multipage-3.tif'));
    expect(tiffLayout(pages.subarray(0, 12))).toBeUndefined();
  });
});

describe("the oracle on a converted image's shape", () => {
  const IMAGE = '11111111-1111-4111-8111-111111111111';
  const file = { name: 'pages.tif', size: 10, layout: { pages: 3, height: 64, width: 96, samples: 1 } };
  const uploaded = (oracle: Oracle, shape: number[]) =>
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        { image: { id: IMAGE, name: 'pages.tif', size: 10, upload_status: 'ready', shape }, upload: null },
        { method: 'POST', sent: { file } },
      ),
    );
  const read = (oracle: Oracle, shape: number[]) =>
    oracle.observe(
      exchange(
        'getUpload',
        200,
        { id: IMAGE, name: 'pages.tif', size: 10, upload_status: 'ready', shape },
        { params: { image_id: IMAGE } },
      ),
    );

  it("holds it to the uploaded TIFF's layout, pages first, on the upload's answer and every read, as UP-25's", () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: 'sk_main' });
    const lost = uploaded(oracle, [64, 96]);
    expect(lost.map((f) => `${f.subject}: ${f.predicted} / ${f.received} (${f.clause})`)).toEqual([
      'uploadImage: image.shape: [3,64,96] / [64,96] (UP-25)',
    ]);
    expect(read(oracle, [3, 64, 96])).toEqual([]);
    expect(read(oracle, [64, 96, 3]).map((f) => f.subject)).toEqual(['getUpload: shape']);
  });

  it('predicts nothing of a file whose layout it did not read', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: 'sk_main' });
    const { layout: _, ...unread } = file;
    expect(
      oracle.observe(
        exchange(
          'uploadImage',
          200,
          {
            image: { id: IMAGE, name: 'pages.tif', size: 10, upload_status: 'ready', shape: [7, 7] },
            upload: null,
          },
          { method: 'POST', sent: { file: unread } },
        ),
      ),
    ).toEqual([]);
  });
});
