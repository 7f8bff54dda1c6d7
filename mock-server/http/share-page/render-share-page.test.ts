/**
 * The share page is public and shows text a client chose (the image's name, a custom model's
 * name): every such text is written as text, never as markup, in an element or in an attribute.
 */
import { describe, expect, it } from 'vitest';
import type { SegmentationRecord } from '../../domain/predictions/prediction-record.js';
import { renderSharePage } from './render-share-page.js';

const MARKUP = `<script>alert(1)</script>"><img src=x onerror=alert(2)>'`;

function pageFor(names: { imageName: string; modelName: string }): string {
  const segmentation = {
    ...names,
    createdAt: '2026-11-28T10:00:00.000Z',
    result: {
      width: 4,
      height: 3,
      objects: [
        {
          outline: [
            [0, 0],
            [3, 0],
            [3, 2],
          ],
        },
      ],
    },
  } as unknown as SegmentationRecord;
  return renderSharePage({
    segmentation,
    imageUrl: '/s/token/image.png',
    signInUrl: 'https://example.test/login',
  });
}

describe('renderSharePage', () => {
  it('writes a hostile image name and model name as text, in elements and attributes alike', () => {
    const html = pageFor({ imageName: `cells${MARKUP}.tif`, modelName: `model${MARKUP}` });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('"><img');
    const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&#39;';
    expect(html).toContain(`alt="Microscopy image cells${escaped}.tif"`);
    expect(html).toContain(`<figcaption>cells${escaped}.tif ·`);
    expect(html).toContain(`<span data-testid="model-name">model${escaped}</span>`);
    expect(html).toContain(`<title>1 cells · shared segmentation</title>`);
  });
});
