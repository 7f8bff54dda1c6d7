/**
 * The CPU "threshold" model: smooth, Otsu threshold, fill holes, label, optionally split touching
 * cells, filter, trace and measure.
 *
 * References are in each stage's module. Stages run in sequence on typed arrays; between stages
 * `signal.throwIfAborted()` lets a job be cancelled. The output satisfies the outline invariant
 * (repair-labels.ts): 4-connected labelling after 4-connected hole filling needs no repair; after
 * the watershed split, regions are repaired (holes and enclosed regions go to the enclosing one).
 */
import type { Plane } from '../raster/plane.js';
import { traceAllOutlines } from '../geometry/trace-outline.js';
import { measureObjects } from '../geometry/measure.js';
import { squaredDistanceTransform } from './distance-transform.js';
import { fillHoles } from './fill-holes.js';
import { filterObjects } from './filter-objects.js';
import { gaussianSmooth, MAX_SIGMA } from './gaussian.js';
import { labelComponentsWithAreas } from './label.js';
import { repairLabelImage } from './repair-labels.js';
import { otsuMask, type Polarity } from './threshold.js';
import type { LabelImage, SegmentationResult, SegmentedObject } from './types.js';
import { DEFAULT_WATERSHED_OPTIONS, splitTouchingObjects } from './watershed.js';

export interface ThresholdParams {
  /** Gaussian sigma in pixels, 0 (no smoothing) to MAX_SIGMA (10). */
  sigma: number;
  /** 'bright': objects are value > t; 'dark': value <= t (t = Otsu threshold of the smoothed plane). */
  polarity: Polarity;
  /** Objects smaller than this many pixels are dropped. */
  minAreaPx: number;
  /** Objects larger than this many pixels are dropped. */
  maxAreaPx?: number;
  /** Split touching cells with a seeded watershed on the distance transform. */
  splitTouching: boolean;
  /** Drop objects with a pixel on the image border. */
  excludeBorderObjects: boolean;
}

export interface StageTimings {
  smoothMs: number;
  thresholdMs: number;
  fillHolesMs: number;
  labelMs: number;
  splitMs: number;
  filterMs: number;
  traceMs: number;
  measureMs: number;
  totalMs: number;
}

export interface DetailedSegmentation {
  result: SegmentationResult;
  /** The final label image; label i is result.objects[i - 1]. */
  labels: LabelImage;
  /** The Otsu threshold used (a value of the smoothed plane). */
  threshold: number;
  timings: StageTimings;
}

function validate(plane: Plane, params: ThresholdParams): Uint8Array | Uint16Array {
  if (plane.bitsPerSample === 32) {
    throw new Error(
      'segmentByThreshold: 32-bit float planes are not accepted; the raster decoder converts them to 16-bit',
    );
  }
  const { width, height, data } = plane;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new Error(`segmentByThreshold: invalid plane size ${width} x ${height}`);
  }
  if (data.length !== width * height)
    throw new Error(`segmentByThreshold: data length ${data.length} != ${width} x ${height}`);
  const typed =
    (plane.bitsPerSample === 8 && data instanceof Uint8Array) ||
    (plane.bitsPerSample === 16 && data instanceof Uint16Array);
  if (!typed)
    throw new Error(`segmentByThreshold: bitsPerSample ${plane.bitsPerSample} does not match the data array`);
  if (!Number.isFinite(params.sigma) || params.sigma < 0 || params.sigma > MAX_SIGMA) {
    throw new Error(`invalid sigma ${params.sigma}: must be in [0, ${MAX_SIGMA}]`);
  }
  if (params.polarity !== 'bright' && params.polarity !== 'dark')
    throw new Error(`invalid polarity ${String(params.polarity)}`);
  if (!Number.isFinite(params.minAreaPx) || params.minAreaPx < 0)
    throw new Error(`invalid minAreaPx ${params.minAreaPx}`);
  if (params.maxAreaPx !== undefined && !(params.maxAreaPx >= params.minAreaPx)) {
    throw new Error(`invalid maxAreaPx ${params.maxAreaPx}`);
  }
  return data as Uint8Array | Uint16Array;
}

export function segmentByThresholdDetailed(
  plane: Plane,
  params: ThresholdParams,
  signal?: AbortSignal,
): DetailedSegmentation {
  const data = validate(plane, params);
  const { width, height } = plane;
  signal?.throwIfAborted();
  const t0 = performance.now();
  const smoothed = params.sigma > 0 ? gaussianSmooth(data, width, height, params.sigma) : data;
  const t1 = performance.now();
  signal?.throwIfAborted();
  const { threshold, mask } = otsuMask(smoothed, params.polarity);
  const t2 = performance.now();
  signal?.throwIfAborted();
  const filled = fillHoles(mask, width, height);
  const t3 = performance.now();
  signal?.throwIfAborted();
  const labelled = labelComponentsWithAreas(filled, width, height);
  let objects = labelled.image;
  let rasterOrderedAreas: Float64Array | undefined = labelled.areas;
  const t4 = performance.now();
  signal?.throwIfAborted();
  if (params.splitTouching && objects.count > 0) {
    const distance = squaredDistanceTransform(filled, width, height);
    signal?.throwIfAborted();
    const regions = splitTouchingObjects(objects, distance, DEFAULT_WATERSHED_OPTIONS);
    signal?.throwIfAborted();
    const repaired = repairLabelImage(regions, { order: 'raster' });
    objects = repaired.image;
    rasterOrderedAreas = repaired.areas;
  }
  const t5 = performance.now();
  signal?.throwIfAborted();
  const labels = filterObjects(
    objects,
    {
      minAreaPx: params.minAreaPx,
      maxAreaPx: params.maxAreaPx,
      excludeBorderObjects: params.excludeBorderObjects,
    },
    rasterOrderedAreas,
  );
  const t6 = performance.now();
  signal?.throwIfAborted();
  // Unless splitting or filtering renumbered the labels, labelling already found their first pixels.
  const outlines = traceAllOutlines(labels, labels === labelled.image ? labelled.firstPixels : undefined);
  const t7 = performance.now();
  signal?.throwIfAborted();
  const measurements = measureObjects(labels, outlines);
  const objectsOut: SegmentedObject[] = new Array(labels.count);
  for (let l = 1; l <= labels.count; l++) {
    objectsOut[l - 1] = { label: l, outline: outlines[l - 1], measurements: measurements[l - 1] };
  }
  const t8 = performance.now();
  return {
    result: { width, height, objects: objectsOut },
    labels,
    threshold,
    timings: {
      smoothMs: t1 - t0,
      thresholdMs: t2 - t1,
      fillHolesMs: t3 - t2,
      labelMs: t4 - t3,
      splitMs: t5 - t4,
      filterMs: t6 - t5,
      traceMs: t7 - t6,
      measureMs: t8 - t7,
      totalMs: t8 - t0,
    },
  };
}

export function segmentByThreshold(
  plane: Plane,
  params: ThresholdParams,
  signal?: AbortSignal,
): SegmentationResult {
  return segmentByThresholdDetailed(plane, params, signal).result;
}
