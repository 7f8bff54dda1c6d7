import { isUnreadablePlane } from '../../engines/raster/plane-file.js';
import type { SegmentationResult } from '../../engines/segmentation/types.js';
import type { SegmentationSource } from '../images/derived-files.js';
import type { ImageRecord } from '../images/image-record.js';
import type { ImageService } from '../images/image-service.js';
import type { ModelRecord } from '../models/model-record.js';

/**
 * Runs a model on an image; a GPU worker or the CPU threshold segmenter stand behind it alike. A
 * kept plane that cannot be read rejects with an error named `PlaneFileError` (engines/raster/plane-file.ts).
 */
export interface SegmentationRunner {
  run(model: ModelRecord, source: SegmentationSource, signal: AbortSignal): Promise<SegmentationResult>;
}

/**
 * Resolves the image's source and segments it: the plane the image's conversion kept, or the
 * stored TIFF. A kept plane that cannot be read (cut short, overwritten) is no reason to fail the
 * prediction: the stored TIFF is decoded instead, as for an image that has none.
 */
export async function segmentImage(
  images: ImageService,
  runner: SegmentationRunner,
  model: ModelRecord,
  image: ImageRecord,
  signal: AbortSignal,
): Promise<SegmentationResult> {
  const source = await images.segmentationSource(image);
  try {
    return await runner.run(model, source, signal);
  } catch (err) {
    if (!('planePath' in source) || !isUnreadablePlane(err) || signal.aborted) throw err;
    return runner.run(model, await images.storedTiffSource(image), signal);
  }
}
