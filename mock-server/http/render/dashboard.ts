import type { DashboardImage } from '../../control/dashboard-reads.js';
import type { ModelRecord } from '../../domain/models/model-record.js';
import type { ControlSchemas } from '../api-schemas.js';
import { toImageResource } from './image.js';
import { toModelResource } from './model.js';
import { toPredictionResource } from './prediction.js';
import { toShareResource } from './share.js';

/** An image as the dashboard lists it: the Image, its organization, its predictions and their shares. */
export function toDashboardImage(
  { image, predictions }: DashboardImage,
  shareBaseUrl: string,
): ControlSchemas['MockImage'] {
  return {
    ...toImageResource(image),
    organization_id: image.organizationId,
    has_thumbnail: image.derived !== null,
    predictions: predictions.map(({ prediction, shares }) => ({
      ...toPredictionResource(prediction),
      shares: shares.map((share) => toShareResource(share, shareBaseUrl)),
    })),
  };
}

export function toDashboardModel(model: ModelRecord): ControlSchemas['MockModel'] {
  return { ...toModelResource(model), engine: model.engine.kind };
}
