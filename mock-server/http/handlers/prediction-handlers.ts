import type { PredictionService } from '../../domain/predictions/prediction-service.js';
import type { OperationHandler } from '../operation-context.js';
import { toPredictionAck, toPredictionResource } from '../render/prediction.js';

export interface PredictionUseCases {
  predictions: Pick<PredictionService, 'submit' | 'get'>;
}

export function predictionHandlers({ predictions }: PredictionUseCases): Record<string, OperationHandler> {
  return {
    async createPrediction({ res, org, body }) {
      const { image_id, model_id } = body as { image_id: string; model_id: string };
      const { prediction, skipped } = await predictions.submit(org, image_id, model_id);
      res.json(toPredictionAck(prediction, skipped));
    },

    async getPrediction({ res, org, params }) {
      res.json(toPredictionResource(await predictions.get(org, params.prediction_id)));
    },
  };
}
