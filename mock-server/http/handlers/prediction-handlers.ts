import type { Services } from '../../services.js';
import type { OperationHandler } from '../operation-context.js';
import { toPredictionResource } from '../render/prediction.js';

export function predictionHandlers({ predictions }: Services): Record<string, OperationHandler> {
  return {
    createPrediction({ res, org, body }) {
      const { image_id, model_id } = body as { image_id: string; model_id: string };
      const { prediction, skipped } = predictions.submit(org, image_id, model_id);
      res.json({
        prediction_id: prediction.id,
        status: skipped ? 'skipped' : 'submitted',
        reason: skipped
          ? `An identical prediction (same image and model) is already ${prediction.status}; poll it instead.`
          : 'Queued for segmentation.',
      });
    },

    getPrediction({ res, org, params }) {
      res.json(toPredictionResource(predictions.get(org, params.prediction_id)));
    },
  };
}
