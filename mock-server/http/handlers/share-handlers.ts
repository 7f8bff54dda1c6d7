import type { ShareService } from '../../domain/shares/share-service.js';
import { toShareResource } from '../render/share.js';
import type { OperationHandler } from '../operation-context.js';

export interface ShareUseCases {
  /** Shares of the organization's segmentations (404 across organizations). */
  shares: Pick<ShareService, 'createOrGet' | 'get' | 'revoke'>;
  settings: { shareBaseUrl: string };
}

export function shareHandlers({ shares, settings }: ShareUseCases): Record<string, OperationHandler> {
  const resource = (share: Parameters<typeof toShareResource>[0]) =>
    toShareResource(share, settings.shareBaseUrl);
  return {
    async createShare({ res, org, body }) {
      const segmentationId = (body as { segmentation_id: string }).segmentation_id;
      res.json(resource(await shares.createOrGet(org, segmentationId)));
    },
    async getShare({ res, org, params }) {
      res.json(resource(await shares.get(org, params.share_id)));
    },
    async revokeShare({ res, org, params }) {
      res.json(resource(await shares.revoke(org, params.share_id)));
    },
  };
}
