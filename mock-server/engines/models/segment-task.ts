import { decodePlane } from '../raster/decode-plane.js';
import type { Plane } from '../raster/plane.js';
import { readPlaneFile } from '../raster/plane-file.js';
import { inspectTiff, type TiffLimits } from '../raster/tiff-inspect.js';
import type { SegmentationResult } from '../segmentation/types.js';
import { segmentByThreshold, type ThresholdParams } from '../segmentation/threshold-segmenter.js';
import { segmentRemotely, type RemoteWorker } from './remote-model.js';

export type ModelSpec = { name: string; version: string } & (
  { kind: 'threshold'; params: ThresholdParams } | ({ kind: 'remote' } & RemoteWorker)
);

/** The plane the image's conversion kept, or (for images converted without one) the stored TIFF. */
export type ImageSource = { planePath: string } | { tiffPath: string };

/** The limits are the TIFF's, for an image decoded again. */
export interface SegmentTask extends TiffLimits {
  source: ImageSource;
  model: ModelSpec;
  maxPixels: number;
}

/**
 * One job: read the image's plane and run the model on it. Runs in a decoder child process
 * (runtime/decoder-pool), never in the server's own.
 */
export async function segmentStoredImage(
  task: SegmentTask,
  signal: AbortSignal = new AbortController().signal,
): Promise<SegmentationResult> {
  const plane = await planeOf(task);
  signal.throwIfAborted();
  const { model } = task;
  return model.kind === 'remote'
    ? segmentRemotely(plane, model, signal)
    : segmentByThreshold(plane, model.params, signal);
}

/** The plane the conversion decoded; the TIFF is decoded again only for images that have none. */
async function planeOf(task: SegmentTask): Promise<Plane> {
  if ('planePath' in task.source) return readPlaneFile(task.source.planePath);
  const { tiffPath } = task.source;
  return decodePlane(tiffPath, await inspectTiff(tiffPath, task));
}
