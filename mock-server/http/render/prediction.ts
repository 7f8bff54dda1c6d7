import type { PredictionRecord } from '../../domain/predictions/prediction-record.js';
import type { ApiSchemas } from '../api-schemas.js';
import { withoutServerPaths } from '../server-paths.js';

/** The interface's Prediction resource; its `error` names no server file. */
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
    ...(p.status === 'FAILED' ? { error: withoutServerPaths(p.error ?? 'prediction failed') } : {}),
  };
}
