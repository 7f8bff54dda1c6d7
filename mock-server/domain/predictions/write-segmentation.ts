import { randomUUID } from 'node:crypto';
import type { SegmentationResult } from '../../engines/segmentation/types.js';
import type { MockClock } from '../clock.js';
import type { ImageRecord } from '../images/image-record.js';
import type { ModelRecord } from '../models/model-record.js';
import type { SegmentationFiles } from '../segmentations/segmentation-files.js';
import type { PredictionRecord, SegmentationRow } from './prediction-record.js';

/**
 * Everything a completed prediction needs, written and flushed under a temporary name and then
 * renamed into place, before the row that announces it commits; answers that row, to publish.
 */
export async function writeSegmentation(
  files: SegmentationFiles,
  clock: MockClock,
  prediction: PredictionRecord,
  model: ModelRecord,
  image: ImageRecord,
  result: SegmentationResult,
): Promise<SegmentationRow> {
  const id = randomUUID();
  const imagePreview = image.derived?.previewPath ?? null;
  await files.write(id, result, imagePreview);
  return {
    id,
    organizationId: prediction.organizationId,
    predictionId: prediction.id,
    imageId: prediction.imageId,
    imageName: image.name,
    modelId: model.id,
    modelName: model.name,
    source: `${model.engine.kind === 'remote' ? 'remote' : 'mock-threshold'}/${model.version}`,
    cellCount: result.objects.length,
    roiIds: result.objects.map(() => randomUUID()),
    hasPreview: imagePreview !== null,
    createdAt: clock.nowIso(prediction.organizationId),
  };
}
