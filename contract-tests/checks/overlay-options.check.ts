import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { completedSegmentation } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { expectStatus } from '../harness/steps.js';
import { expectFieldError, type ValidationItem } from '../harness/validation-items.js';

/**
 * The overlay's drawing options, one at a time against the default drawing, so the oracle can hold
 * each against it: the outlines in another colour, an opaque fill and a half-transparent one, and
 * a size cap above the image's and at each end of its range (the oracle predicts each answered).
 * Then values the document's schema refuses, each of which the oracle predicts refused 422
 * (VAL-05), never drawn as the nearest value it takes, with an item that names the parameter and
 * echoes the value sent (VAL-02).
 * What each overlay's pixels must be the oracle predicts (model/overlay-options.ts); here only that
 * every option changes the drawing at all.
 */
// the colour in lower case: the document's pattern takes hex digits of either case
const DRAWINGS = [{ outline_color: 'ff0000' }, { fill_opacity: 1 }, { fill_opacity: 0.5 }];
/** Just outside each option's range (max_size 16-65536, fill_opacity 0-1), and a colour with its `#`. */
const REFUSED = [{ max_size: 8 }, { max_size: 65537 }, { fill_opacity: 1.5 }, { outline_color: '#FF0000' }];

check(
  'overlay.png draws outline_color and fill_opacity as the document says, and refuses values outside the options',
  { clauses: ['MEAS-08', 'VAL-05', 'VAL-02'] },
  async (ctx) => {
    const { segmentationId } = await completedSegmentation(ctx, presetTiff().bytes);
    const params = { segmentation_id: segmentationId };
    const plain = await ctx.api.call<Buffer>('exportOverlayPng', { params });
    expectStatus(plain, 200, 'overlay.png with the default options');
    for (const query of DRAWINGS) {
      const drawn = await ctx.api.call<Buffer>('exportOverlayPng', { params, query });
      const label = `overlay.png?${Object.entries(query)
        .map(([k, v]) => `${k}=${v}`)
        .join('&')}`;
      expectStatus(drawn, 200, label);
      expect(drawn.bytes.equals(plain.bytes), `${label}: the same bytes as the default drawing`).toBe(false);
    }
    // a cap above the longest side: the overlay is only ever scaled down, so it keeps its full size
    // (the oracle holds its size to the default drawing's); and each end of the document's range,
    // which is inclusive: 65536 (what a client sends for "no cap") and 16 (scaled to 16 at most)
    const longest = Math.max(plain.bytes.readUInt32BE(16), plain.bytes.readUInt32BE(20));
    for (const max_size of [Math.min(65536, 2 * longest), 65536, 16])
      expectStatus(
        await ctx.api.call<Buffer>('exportOverlayPng', { params, query: { max_size } }),
        200,
        `overlay.png?max_size=${max_size}`,
      );
    // each refusal names its own parameter and echoes what was sent (VAL-02), not an earlier one's
    for (const query of REFUSED) {
      const refused = await ctx.api.call<{ detail: ValidationItem[] }>('exportOverlayPng', { params, query });
      const [[name, value]] = Object.entries(query);
      if (refused.status === 422 && Array.isArray(refused.body.detail))
        await ctx.verify('VAL-02', () => {
          const label = `overlay.png?${name}=${value}`;
          expectFieldError(refused.body.detail, name, label, undefined, 'query');
          // the value as sent (a query's string) or as the target read it (a number): any JSON value
          const item = refused.body.detail.find((d) => d.loc?.[1] === name);
          expect(
            [String(value), value],
            `${label}: input of the ${name} item echoes the value sent`,
          ).toContainEqual(item?.input);
        });
    }
  },
);
