import { isObject, type Finding } from './exchange.js';

/**
 * rois.geojson's rings follow GeoJSON's right-hand rule (RFC 7946 3.1.6: a linear ring MUST follow
 * it, exterior rings counterclockwise, holes clockwise). Counterclockwise is read on the numbers
 * as written, x then y: a positive shoelace sum, as shapely's `orient`, turf and GEOS's `isCCW`
 * read it; in image pixel coordinates (y down) that ring looks clockwise on screen. RFC 7946 asks
 * parsers not to reject a ring that breaks the rule, for files older than it; a writer is held to
 * it. Filed under EXP-04 (rois.geojson is GeoJSON), so a target that winds its rings the other way
 * fails that clause, not every check that downloads the file.
 */
const SENTENCE =
  'GeoJSON FeatureCollection, one polygon feature per cell, image pixel coordinates (RFC 7946 3.1.6: a linear ring MUST follow the right-hand rule, exterior rings counterclockwise, holes clockwise)';

/** Twice the ring's signed area on its numbers (x, y): positive is counterclockwise in RFC 7946's sense. */
function signedArea2(ring: unknown[]): number | undefined {
  const points = ring.filter(
    (p): p is number[] => Array.isArray(p) && typeof p[0] === 'number' && typeof p[1] === 'number',
  );
  if (points.length !== ring.length || points.length < 4) return undefined;
  let sum = 0;
  for (let i = 0; i + 1 < points.length; i++)
    sum += points[i][0] * points[i + 1][1] - points[i + 1][0] * points[i][1];
  const [first, last] = [points[0], points[points.length - 1]];
  sum += last[0] * first[1] - first[0] * last[1]; // 0 for a closed ring; closes one that is not
  return sum;
}

/** Each Polygon's exterior ring counterclockwise and each hole clockwise; a ring of no area is left alone. */
export function observeRingOrientation(features: unknown[], findings: Finding[]): void {
  const wrong: string[] = [];
  features.forEach((feature, i) => {
    const geometry = isObject(feature) && isObject(feature.geometry) ? feature.geometry : undefined;
    if (geometry?.type !== 'Polygon' || !Array.isArray(geometry.coordinates)) return;
    geometry.coordinates.forEach((ring, r) => {
      const area2 = Array.isArray(ring) ? signedArea2(ring) : undefined;
      if (area2 === undefined || area2 === 0) return;
      if (r === 0 ? area2 < 0 : area2 > 0)
        wrong.push(`feature ${i + 1} ${r === 0 ? 'exterior ring' : `hole ${r}`}`);
    });
  });
  if (wrong.length)
    findings.push({
      sentence: SENTENCE,
      subject: `exportRoisGeojson: ring orientation (${wrong.length} of ${features.length} features)`,
      predicted: 'exterior rings counterclockwise (positive shoelace sum on x, y), holes clockwise',
      received: `wound the other way: ${wrong.slice(0, 3).join(', ')}${wrong.length > 3 ? ', …' : ''}`,
      clause: 'EXP-04',
    });
}
