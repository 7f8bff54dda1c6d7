import type { ApiSchemas } from '../../http/api-schemas.js';
import type { SegmentationResult } from '../../engines/segmentation/types.js';

export type PredictionStatus = 'SUBMITTED' | 'STARTED' | 'COMPLETED' | 'FAILED';

export interface PredictionRecord {
  id: string;
  organizationId: string;
  imageId: string;
  modelId: string;
  status: PredictionStatus;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  segmentationId: string | null;
  cellCount: number | null;
  error: string | null;
}

/** What a completed prediction produced: the objects, and what the exports need to describe them. */
export interface SegmentationRecord {
  id: string;
  organizationId: string;
  predictionId: string;
  imageId: string;
  imageName: string;
  modelId: string;
  modelName: string;
  /** e.g. "mock-threshold/1.0.0": which engine produced it. */
  source: string;
  result: SegmentationResult;
  /** One UUID per object, stable for the life of the segmentation. */
  roiIds: string[];
  /** The image's preview, kept so exports and share pages survive the image's deletion. */
  previewPath: string | null;
  createdAt: string;
}

export function toPredictionResource(p: PredictionRecord): ApiSchemas['Prediction'] {
  return {
    prediction_id: p.id,
    status: p.status,
    image_id: p.imageId,
    model_id: p.modelId,
    created_at: p.createdAt,
    ...(p.status === 'COMPLETED' && p.segmentationId !== null && p.cellCount !== null
      ? { segmentation_id: p.segmentationId, cell_count: p.cellCount }
      : {}),
    ...(p.status === 'FAILED' ? { error: p.error ?? 'prediction failed' } : {}),
  };
}
