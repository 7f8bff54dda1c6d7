import type { PredictionService } from '../../domain/predictions/prediction-service.js';
import type { ShareService } from '../../domain/shares/share-service.js';
import { toShareResource } from '../render/share.js';
import type { OperationHandler } from '../operation-context.js';

export interface ShareUseCases {
  shares: Pick<ShareService, 'createOrGet' | 'get' | 'revoke'>;
  /** The organization's segmentation a share is made for (404 across organizations). */
  predictions: Pick<PredictionService, 'segmentation'>;
  settings: { shareBaseUrl: string };
}

export function shareHandlers({
  shares,
  predictions,
  settings,
}: ShareUseCases): Record<string, OperationHandler> {
  const resource = (share: Parameters<typeof toShareResource>[0]) =>
    toShareResource(share, settings.shareBaseUrl);
  return {
    createShare({ res, org, body }) {
      const segmentation = predictions.segmentation(
        org,
        (body as { segmentation_id: string }).segmentation_id,
      );
      res.json(resource(shares.createOrGet(org, segmentation)));
    },
    getShare({ res, org, params }) {
      res.json(resource(shares.get(org, params.share_id)));
    },
    revokeShare({ res, org, params }) {
      res.json(resource(shares.revoke(org, params.share_id)));
    },
  };
}
