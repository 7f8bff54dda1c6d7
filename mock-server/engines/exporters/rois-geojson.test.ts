import { describe, expect, it } from 'vitest';
import { shoelaceArea } from '../geometry/measure.js';
import { closedPositiveRing, roisGeoJson, roisGeoJsonChunks } from './rois-geojson.js';

/** The document as compact JSON text (the bytes the HTTP layer sends). */
const roisGeoJsonText = (ctx: Parameters<typeof roisGeoJsonChunks>[0]) =>
  [...roisGeoJsonChunks(ctx)].join('');
import { checkWithShapely, shapelyMissing } from '../../../test-support/exporters/external-tools.js';
import { contextFor, HAND_RESULT } from '../../../test-support/exporters/fixtures.js';
import { randomResult } from '../../../test-support/exporters/random-result.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

describe('roisGeoJson', () => {
  it('writes one closed, positively oriented Polygon per ROI with QuPath properties', () => {
    const ctx = contextFor(HAND_RESULT);
    const doc = roisGeoJson(ctx);
    expect(doc.type).toBe('FeatureCollection');
    expect(doc.features).toHaveLength(4);
    expect(doc.features[0]).toEqual({
      type: 'Feature',
      id: '00000000-0000-4000-8000-000000000001',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [2, 1],
            [5, 1],
            [5, 3],
            [2, 3],
            [2, 1],
          ],
        ],
      },
      properties: {
        objectType: 'detection',
        name: '0002-0003',
        classification: { name: 'cell' },
        roi_index: 1,
        roi_id: '00000000-0000-4000-8000-000000000001',
        cell_type: 'cell',
        tags: [],
        entity_type: 'cell',
        measurements: {
          area_px: 6,
          perimeter_px: 10 - 4 * (2 - Math.SQRT2),
          centroid_x: 3.5,
          centroid_y: 2,
          bbox_x: 2,
          bbox_y: 1,
          bbox_w: 3,
          bbox_h: 2,
        },
      },
    });
    expect(doc.features.map((f) => f.properties.name)).toEqual([
      '0002-0003',
      '0002-0009',
      '0012-0012',
      '0012-0012-1',
    ]);
  });

  it('random objects: closed rings, shoelace == area_px, numeric measurements, UUID ids, 1-based indexes', async () => {
    const { result } = randomResult(5);
    const doc = roisGeoJson(contextFor(result));
    expect(doc.features).toHaveLength(result.objects.length);
    doc.features.forEach((f, i) => {
      const ring = f.geometry.coordinates[0];
      expect(f.geometry.coordinates).toHaveLength(1);
      expect(ring[ring.length - 1]).toEqual(ring[0]);
      expect(ring.length).toBe(result.objects[i].outline.length + 1);
      expect(shoelaceArea(ring.slice(0, -1))).toBe(f.properties.measurements.area_px);
      expect(f.id).toMatch(UUID);
      expect(f.properties.roi_id).toBe(f.id);
      expect(f.properties.roi_index).toBe(i + 1);
      for (const value of Object.values(f.properties.measurements)) expect(typeof value).toBe('number');
    });
    expect(new Set(doc.features.map((f) => f.properties.name)).size).toBe(doc.features.length);
  });

  it('reverses a negatively oriented ring rather than exporting it clockwise', () => {
    const ring = closedPositiveRing([
      [0, 0],
      [0, 2],
      [3, 2],
      [3, 0],
    ]);
    expect(shoelaceArea(ring.slice(0, -1))).toBe(6);
    expect(ring[ring.length - 1]).toEqual(ring[0]);
  });

  it('text form is compact JSON and identical for the same input', async () => {
    const { result } = randomResult(3);
    const a = roisGeoJsonText(contextFor(result));
    expect(a).toBe(roisGeoJsonText(contextFor(result)));
    expect(JSON.parse(a)).toEqual(roisGeoJson(contextFor(result)));
  });

  const noShapely = shapelyMissing();
  it.skipIf(noShapely !== null)(
    `shapely: every polygon is valid, counter-clockwise, with area == area_px${noShapely ? ` (skipped: ${noShapely})` : ''}`,
    async () => {
      const simple = randomResult(9).result;
      const repaired = randomResult(9, { simple: false }).result;
      // the three sets overlap; shapely judges each polygon on its own
      const ctx = contextFor({
        ...simple,
        objects: [...HAND_RESULT.objects, ...simple.objects, ...repaired.objects],
      });
      const text = roisGeoJsonText(ctx);
      const verdicts = checkWithShapely(text);
      expect(verdicts).toHaveLength(ctx.result.objects.length);
      verdicts.forEach((v, i) => {
        expect(v, `feature ${i}: ${v.reason}`).toMatchObject({ valid: true, exteriorCcw: true });
        expect(v.area).toBe(ctx.result.objects[i].measurements.areaPx);
      });
    },
  );

  it.skipIf(noShapely !== null)('shapely judge rejects a ring that touches itself at a pinch vertex', () => {
    // two pixels meeting at the corner (1, 1), traced as one ring through that corner twice
    const pinched = {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          id: 'pinch',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [1, 0],
                [1, 1],
                [2, 1],
                [2, 2],
                [1, 2],
                [1, 1],
                [0, 1],
                [0, 0],
              ],
            ],
          },
          properties: {},
        },
      ],
    };
    expect(checkWithShapely(JSON.stringify(pinched))[0].valid).toBe(false);
  });
});
