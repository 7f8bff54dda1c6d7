/**
 * A loaded segmentation's outlines (`result.json`), checked before anything is replaced. The
 * manifest's SHA-256 proves the bytes are the ones the archive lists, not that they describe the
 * segmentation: the exports read them as the mock wrote them (an object per ROI id, a non-empty
 * outline inside the image, numbers where measurements are), and an export that met anything else
 * would fail long after the load had answered 200.
 */
import type { ImageRecord } from '../images/image-record.js';
import type { SegmentationRow } from '../predictions/prediction-record.js';
import { segmentationEntry, SnapshotRefused } from './snapshot-format.js';
import { kindOf } from './snapshot-row-checks.js';

const MEASUREMENTS = ['areaPx', 'perimeterPx', 'centroidX', 'centroidY'] as const;
const BOUNDS = ['x', 'y', 'width', 'height'] as const;

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => kindOf(v) === 'object';
const isSize = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;

export function checkSegmentationResult(
  row: SegmentationRow,
  image: ImageRecord | undefined,
  bytes: Buffer,
): void {
  const entry = segmentationEntry(row.id, 'result.json');
  const refuse = (what: string): never => {
    throw new SnapshotRefused(`entry "${entry}": ${what}`);
  };
  let result: unknown;
  try {
    result = JSON.parse(bytes.toString('utf8'));
  } catch {
    refuse('not JSON');
  }
  if (!isObject(result) || !isSize(result.width) || !isSize(result.height))
    return refuse('no positive integer width and height');
  const { width, height, objects } = result;
  if (image?.derived && (image.derived.width !== width || image.derived.height !== height))
    refuse(`${width}x${height}, but its image is ${image.derived.width}x${image.derived.height}`);
  if (!Array.isArray(objects) || objects.length !== row.roiIds.length || objects.length !== row.cellCount)
    return refuse(`objects must be a list of ${row.roiIds.length} (one per ROI id), as cell_count says`);
  objects.forEach((object: unknown, i: number) => {
    const at = `objects[${i}]`;
    if (!isObject(object) || object.label !== i + 1) refuse(`${at}.label must be ${i + 1}`);
    const { outline, measurements } = object as Loose;
    if (!Array.isArray(outline) || outline.length === 0)
      refuse(`${at}.outline must be a non-empty list of points`);
    for (const point of outline as unknown[]) {
      const [x, y] = Array.isArray(point) && point.length === 2 ? (point as unknown[]) : [];
      if (!(typeof x === 'number' && x >= 0 && x <= width && typeof y === 'number' && y >= 0 && y <= height))
        refuse(`${at}.outline has a point that is not [x, y] inside the ${width}x${height} image`);
    }
    const bbox = isObject(measurements) ? measurements.bbox : undefined;
    const numbers = [
      ...MEASUREMENTS.map((k) => (measurements as Loose | undefined)?.[k]),
      ...BOUNDS.map((k) => (isObject(bbox) ? bbox[k] : undefined)),
    ];
    if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n)))
      refuse(`${at}.measurements must hold ${[...MEASUREMENTS, 'bbox'].join(', ')} as numbers`);
  });
}
