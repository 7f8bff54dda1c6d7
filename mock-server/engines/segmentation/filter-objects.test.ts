import { describe, expect, it } from 'vitest';
import { filterObjects, relabelInRasterOrder } from './filter-objects.js';
import { labelComponentsWithAreas } from './label.js';
import type { LabelImage } from './types.js';

const image: LabelImage = {
  width: 5,
  height: 4,
  count: 4,
  // label 3 has 1 pixel, label 1 touches the border, labels 2 and 4 are inside
  labels: Int32Array.of(
    1,
    1,
    0,
    0,
    0, //
    0,
    0,
    4,
    4,
    0,
    0,
    2,
    2,
    3,
    0,
    0,
    2,
    2,
    0,
    0,
  ),
};

describe('filterObjects', () => {
  it('drops small objects and renumbers in raster order without gaps', () => {
    const out = filterObjects(image, { minAreaPx: 2 });
    expect(out.count).toBe(3);
    expect([...out.labels]).toEqual([1, 1, 0, 0, 0, 0, 0, 2, 2, 0, 0, 3, 3, 0, 0, 0, 3, 3, 0, 0]);
  });
  it('drops objects over the maximum area and objects on the border', () => {
    const out = filterObjects(image, { minAreaPx: 0, maxAreaPx: 3, excludeBorderObjects: true });
    expect(out.count).toBe(2);
    expect([...out.labels]).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]);
  });
  it('uses areas given by the caller and returns the input when nothing changes', () => {
    const mask = Uint8Array.of(1, 1, 0, 0, 1, 0, 1, 0, 1);
    const { image: labelled, areas } = labelComponentsWithAreas(mask, 3, 3);
    expect([...areas]).toEqual([4, 3, 1, 1]);
    expect(filterObjects(labelled, { minAreaPx: 1 }, areas)).toBe(labelled);
    expect(filterObjects(labelled, { minAreaPx: 2 }, areas).count).toBe(1);
    expect(filterObjects(labelled, { minAreaPx: 1 })).toBe(labelled);
  });

  it('relabelInRasterOrder keeps every object', () => {
    const out = relabelInRasterOrder(image);
    expect(out.count).toBe(4);
    expect(out.labels[7]).toBe(2);
    expect(out.labels[11]).toBe(3);
    expect(out.labels[13]).toBe(4);
  });
});
