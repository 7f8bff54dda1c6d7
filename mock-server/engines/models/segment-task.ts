import { decodePlane } from '../raster/decode-plane.js';
import { inspectTiff } from '../raster/tiff-inspect.js';
import type { SegmentationResult } from '../segmentation/types.js';
import type { ThresholdParams } from '../segmentation/threshold-segmenter.js';
import { RemoteModel } from './remote-model.js';
import type { SegmentationModel } from './segmentation-model.js';
import { ThresholdModel } from './threshold-model.js';

export type ModelSpec =
  | { kind: 'threshold'; name: string; version: string; params: ThresholdParams }
  | {
      kind: 'remote';
      name: string;
      version: string;
      url: string;
      timeoutMs: number;
      params: Record<string, unknown>;
    };

export interface SegmentTask {
  tiffPath: string;
  model: ModelSpec;
  maxPixels: number;
  maxDecodedBytes?: number;
}

export function buildModel(spec: ModelSpec): SegmentationModel {
  return spec.kind === 'remote'
    ? new RemoteModel(spec.name, spec.version, spec.url, spec.timeoutMs, spec.params)
    : new ThresholdModel(spec.name, spec.version, spec.params);
}

/**
 * One job: decode the stored TIFF to a plane and run the model on it. Runs in a decoder child
 * process (runtime/decoder-pool), never in the server's own.
 */
export async function segmentStoredImage(
  task: SegmentTask,
  signal: AbortSignal = new AbortController().signal,
): Promise<SegmentationResult> {
  const info = await inspectTiff(task.tiffPath, {
    maxPixels: task.maxPixels,
    maxDecodedBytes: task.maxDecodedBytes,
  });
  signal.throwIfAborted();
  const plane = await decodePlane(task.tiffPath, info);
  return buildModel(task.model).segment(plane, signal);
}
