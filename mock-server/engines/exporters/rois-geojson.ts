/**
 * `rois.geojson`: a FeatureCollection with one Polygon feature per ROI, in image pixel coordinates
 * (pixel corners, x right, y down; no CRS, as RFC 7946 allows for non-geographic data).
 *
 * Rings are closed (first vertex repeated) and the exterior ring has a positive shoelace sum on the
 * raw y-down coordinates, which is RFC 7946's "counter-clockwise" when the numbers are read as
 * x-east, y-north. Feature `id` is the ROI's UUID, which QuPath (0.4+) keeps as the object's id.
 *
 * Properties follow what QuPath's GeoJSON import reads (PathObjectTypeAdapters): `objectType:
 * "detection"`, `name`, `classification: {name}` (the cell type) and `measurements` as a flat map
 * of numbers. The remaining properties (`roi_index`, 1-based, `roi_id`, `cell_type`, `tags`,
 * `entity_type`) are ours; QuPath ignores them.
 */
import { shoelaceArea } from '../geometry/measure.js';
import type { Ring } from '../geometry/types.js';
import { assertExportable, CELL_TYPE, ENTITY_TYPE, roiIndex, type ExportContext } from './export-context.js';
import { uniqueRoiNames } from './roi-names.js';

export type Position = [x: number, y: number];

/** The ring as a closed GeoJSON linear ring with positive shoelace orientation. */
export function closedPositiveRing(ring: Ring): Position[] {
  if (ring.length < 3) throw new RangeError(`an outline needs at least 3 vertices, got ${ring.length}`);
  const open: Position[] = ring.map(([x, y]) => [x, y]);
  if (shoelaceArea(open) < 0) open.reverse();
  return [...open, [open[0][0], open[0][1]]];
}

export function roisGeoJson(ctx: ExportContext) {
  const featureAt = featureBuilder(ctx);
  return {
    type: 'FeatureCollection',
    features: ctx.result.objects.map((_, position) => featureAt(position)),
  };
}

/** Builds feature by feature, so a large collection never has to exist whole. */
function featureBuilder(ctx: ExportContext) {
  assertExportable(ctx);
  const { objects } = ctx.result;
  const names = uniqueRoiNames(
    objects.map((o) => o.outline),
    ctx.imageHeight,
  );
  return (position: number) => {
    const object = objects[position];
    const m = object.measurements;
    return {
      type: 'Feature',
      id: ctx.roiIds[position],
      geometry: { type: 'Polygon', coordinates: [closedPositiveRing(object.outline)] },
      properties: {
        objectType: 'detection',
        name: names[position],
        classification: { name: CELL_TYPE },
        roi_index: roiIndex(position),
        roi_id: ctx.roiIds[position],
        cell_type: CELL_TYPE,
        tags: [],
        entity_type: ENTITY_TYPE,
        measurements: {
          area_px: m.areaPx,
          perimeter_px: m.perimeterPx,
          centroid_x: m.centroidX,
          centroid_y: m.centroidY,
          bbox_x: m.bbox.x,
          bbox_y: m.bbox.y,
          bbox_w: m.bbox.width,
          bbox_h: m.bbox.height,
        },
      },
    };
  };
}

export const GEOJSON_CHUNK_FEATURES = 500;

/** The same bytes as `JSON.stringify(roisGeoJson(ctx))`, in chunks, so the HTTP layer can stream them. */
export function* roisGeoJsonChunks(ctx: ExportContext): Generator<string> {
  const featureAt = featureBuilder(ctx);
  const count = ctx.result.objects.length;
  yield '{"type":"FeatureCollection","features":[';
  for (let start = 0; start < count; start += GEOJSON_CHUNK_FEATURES) {
    const parts: string[] = [];
    for (let position = start; position < Math.min(count, start + GEOJSON_CHUNK_FEATURES); position++) {
      parts.push(JSON.stringify(featureAt(position)));
    }
    yield (start === 0 ? '' : ',') + parts.join(',');
  }
  yield ']}';
}
