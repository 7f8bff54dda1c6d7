import type { PredictionRecord } from '../../domain/predictions/prediction-record.js';
import type { ApiSchemas } from '../api-schemas.js';

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
