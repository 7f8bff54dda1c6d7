import type { PredictionRecord } from '../../domain/predictions/prediction-record.js';
import type { ApiSchemas } from '../api-schemas.js';
import { withoutServerPaths } from '../server-paths.js';

/**
 * The interface's Prediction resource, in the document's form for its status: a COMPLETED one
 * carries `segmentation_id` and `cell_count`, a FAILED one its `error` (naming no server file).
 */
export function toPredictionResource(p: PredictionRecord): ApiSchemas['Prediction'] {
  const fields = { prediction_id: p.id, image_id: p.imageId, model_id: p.modelId, created_at: p.createdAt };
  if (p.status === 'SUBMITTED' || p.status === 'STARTED') return { ...fields, status: p.status };
  if (p.status === 'COMPLETED' && p.segmentationId !== null && p.cellCount !== null)
    return { ...fields, status: 'COMPLETED', segmentation_id: p.segmentationId, cell_count: p.cellCount };
  // A COMPLETED record is written with its segmentation in one transaction; one without it could
  // only come from a damaged state file, and is not a result to offer.
  const error =
    p.status === 'FAILED'
      ? (p.error ?? 'prediction failed')
      : 'the segmentation of this prediction is missing';
  return { ...fields, status: 'FAILED', error: withoutServerPaths(error) };
}

/** The answer of `POST /predict`: the prediction to poll, fresh or the identical one already in flight. */
export function toPredictionAck(prediction: PredictionRecord, skipped: boolean): ApiSchemas['PredictionAck'] {
  return {
    prediction_id: prediction.id,
    status: skipped ? 'skipped' : 'submitted',
    reason: skipped
      ? `An identical prediction (same image and model) is already ${prediction.status}; poll it instead.`
      : 'Queued for segmentation.',
  };
}
