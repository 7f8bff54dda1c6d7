import { describe, expect, it } from 'vitest';
import { shoelaceArea } from '../../mock-server/engines/geometry/measure.js';
import {
  HAND_HEIGHT,
  HAND_PIXELS,
  HAND_RESULT,
  HAND_WIDTH,
  imagejTracedPerimeter,
  labelImageOf,
  randomLabelImage,
  resultFromLabels,
} from './fixtures.js';

describe('test fixtures (the tests below rely on them)', () => {
  it('the test tracer reproduces the hand-written outlines and measurements', () => {
    const traced = resultFromLabels(labelImageOf(HAND_WIDTH, HAND_HEIGHT, HAND_PIXELS));
    expect(traced.objects.map((o) => o.outline)).toEqual(HAND_RESULT.objects.map((o) => o.outline));
    traced.objects.forEach((object, i) => {
      const hand = HAND_RESULT.objects[i].measurements;
      expect(object.measurements.areaPx).toBe(hand.areaPx);
      expect(object.measurements.bbox).toEqual(hand.bbox);
      expect(object.measurements.centroidX).toBeCloseTo(hand.centroidX, 12);
      expect(object.measurements.centroidY).toBeCloseTo(hand.centroidY, 12);
      expect(object.measurements.perimeterPx).toBeCloseTo(hand.perimeterPx, 12);
    });
  });

  it('ImageJ perimeter port: 1x1 pixel has 2 corners, 2x2 square 4 (PolygonRoi docs)', () => {
    const c = 2 - Math.sqrt(2);
    expect(imagejTracedPerimeter(HAND_RESULT.objects[3].outline)).toBeCloseTo(4 - 2 * c, 12);
    expect(
      imagejTracedPerimeter([
        [0, 0],
        [2, 0],
        [2, 2],
        [0, 2],
      ]),
    ).toBeCloseTo(8 - 4 * c, 12);
  });

  it('random objects: vertices only at turns, positive shoelace equal to pixel count', () => {
    const result = resultFromLabels(randomLabelImage(7, 20, 18));
    expect(result.objects.length).toBeGreaterThan(250);
    for (const { outline, measurements } of result.objects) {
      expect(shoelaceArea(outline)).toBe(measurements.areaPx);
      outline.forEach((p, i) => {
        const prev = outline[(i - 1 + outline.length) % outline.length];
        const next = outline[(i + 1) % outline.length];
        const cross = (p[0] - prev[0]) * (next[1] - p[1]) - (p[1] - prev[1]) * (next[0] - p[0]);
        expect(cross).not.toBe(0);
      });
    }
  });
});
