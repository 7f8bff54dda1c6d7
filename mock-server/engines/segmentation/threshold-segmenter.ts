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
import { squaredDistanceTransform } from './distance-transform.js';
import { fillHoles } from './fill-holes.js';
import { filterObjects, type ObjectFilter } from './filter-objects.js';
import { gaussianSmooth, MAX_SIGMA } from './gaussian.js';
import { labelComponentsWithAreas } from './label.js';
import { describeValidLabels } from './label-image-to-result.js';
import { repairLabelImage } from './repair-labels.js';
import { otsuMask, type Polarity } from './threshold.js';
import type { SegmentationResult } from './types.js';
import { splitTouchingObjects } from './watershed.js';

/** The model's parameters; the area and border ones are filter-objects.ts's. */
export interface ThresholdParams extends ObjectFilter {
  /** Gaussian sigma in pixels, 0 (no smoothing) to MAX_SIGMA (10). */
  sigma: number;
  /** 'bright': objects are value > t; 'dark': value <= t (t = Otsu threshold of the smoothed plane). */
  polarity: Polarity;
  /** Split touching cells with a seeded watershed on the distance transform. */
  splitTouching: boolean;
  excludeBorderObjects: boolean;
}

/** Milliseconds per stage, in pipeline order, and in all. */
export type StageTimings = Record<
  'smoothMs' | 'thresholdMs' | 'fillHolesMs' | 'labelMs' | 'splitMs' | 'filterMs' | 'describeMs' | 'totalMs',
  number
>;

function validate(plane: Plane, params: ThresholdParams): void {
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
  const problem = thresholdParamsProblem(params);
  if (problem) throw new Error(problem);
}

/**
 * What is wrong with a model's parameters, or undefined: told where they are set (the control
 * plane, a snapshot) as well as where they are used, so that a model is refused by field when it
 * is added, not failed by it in every prediction it runs.
 */
export function thresholdParamsProblem(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return 'params must be an object';
  const { sigma, polarity, splitTouching, excludeBorderObjects, minAreaPx, maxAreaPx } = params as Record<
    string,
    unknown
  >;
  if (typeof sigma !== 'number' || !Number.isFinite(sigma) || sigma < 0 || sigma > MAX_SIGMA)
    return `invalid sigma ${String(sigma)}: must be in [0, ${MAX_SIGMA}]`;
  if (polarity !== 'bright' && polarity !== 'dark')
    return `invalid polarity ${JSON.stringify(polarity)}: must be bright or dark`;
  if (typeof splitTouching !== 'boolean') return 'invalid splitTouching: must be true or false';
  if (excludeBorderObjects !== undefined && typeof excludeBorderObjects !== 'boolean')
    return 'invalid excludeBorderObjects: must be true or false';
  if (typeof minAreaPx !== 'number' || !Number.isFinite(minAreaPx) || minAreaPx < 0)
    return `invalid minAreaPx ${String(minAreaPx)}`;
  if (maxAreaPx !== undefined && !(typeof maxAreaPx === 'number' && maxAreaPx >= minAreaPx))
    return `invalid maxAreaPx ${String(maxAreaPx)}`;
  return undefined;
}

/** The result, the final label image (label i is result.objects[i - 1]) and the stages' timings. */
export function segmentByThresholdDetailed(plane: Plane, params: ThresholdParams, signal?: AbortSignal) {
  validate(plane, params);
  const { width, height, data } = plane;
  const start = performance.now();
  const timings = {} as StageTimings;
  let last = start;
  // Times the stage that just ended; between stages a cancelled job stops.
  const lap = (stage: keyof StageTimings): void => {
    const now = performance.now();
    timings[stage] = now - last;
    last = now;
    signal?.throwIfAborted();
  };
  signal?.throwIfAborted();
  const smoothed = params.sigma > 0 ? gaussianSmooth(data, width, height, params.sigma) : data;
  lap('smoothMs');
  const { mask } = otsuMask(smoothed, params.polarity);
  lap('thresholdMs');
  const filled = fillHoles(mask, width, height);
  lap('fillHolesMs');
  const labelled = labelComponentsWithAreas(filled, width, height);
  let objects = labelled.image;
  let rasterOrderedAreas: Float64Array | undefined = labelled.areas;
  lap('labelMs');
  if (params.splitTouching && objects.count > 0) {
    const distance = squaredDistanceTransform(filled, width, height);
    signal?.throwIfAborted();
    const regions = splitTouchingObjects(objects, distance);
    signal?.throwIfAborted();
    const repaired = repairLabelImage(regions, 'raster');
    objects = repaired.image;
    rasterOrderedAreas = repaired.areas;
  }
  lap('splitMs');
  const labels = filterObjects(objects, params, rasterOrderedAreas);
  lap('filterMs');
  // Unless splitting or filtering renumbered the labels, labelling already found their first pixels.
  const result = describeValidLabels(labels, labels === labelled.image ? labelled.firstPixels : undefined);
  timings.describeMs = performance.now() - last;
  timings.totalMs = performance.now() - start;
  return { result, labels, timings };
}

export function segmentByThreshold(
  plane: Plane,
  params: ThresholdParams,
  signal?: AbortSignal,
): SegmentationResult {
  return segmentByThresholdDetailed(plane, params, signal).result;
}
