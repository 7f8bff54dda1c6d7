import { createReadStream } from 'node:fs';
import { sendFileStream } from '../send-file-stream.js';
import { notFound } from '../../domain/errors.js';
import type { ImageRecord } from '../../domain/images/image-record.js';
import type { Services } from '../../services.js';
import type { OperationHandler } from '../operation-context.js';
import { toImageResource } from '../render/image.js';
import { toModelResource } from '../render/model.js';
import { toPredictionResource } from '../render/prediction.js';
import { toShareResource } from '../render/share.js';

const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 1000;

/**
 * Reads the dashboard (/__mock/ui) needs and no other endpoint gives: every organization's images
 * with their predictions and shares, an image's thumbnail, an organization's models. Read from the
 * state directly, so watching never counts as a poll of a prediction (`complete_after_polls`) and
 * never lands in the request journal.
 */
export function dashboardReadHandlers({ state, config }: Services): Record<string, OperationHandler> {
  return {
    mockListImages({ res, query }) {
      const orgId = typeof query.organization_id === 'string' ? query.organization_id : undefined;
      if (orgId !== undefined && !state.organizations.get(orgId)) throw notFound('Organization');
      const limit = limitOf(query.limit);
      if (limit === undefined)
        return void res
          .status(422)
          .json({ detail: `limit: '${String(query.limit)}' is not an integer from 1 to ${MAX_LIMIT}` });
      const orgIds = orgId ? [orgId] : state.organizations.all().map((o) => o.id);
      const images = orgIds
        .flatMap((id) => state.images.idsOf(id))
        .map((id) => state.images.get(id))
        .filter((image): image is ImageRecord => image !== undefined)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
        .slice(0, limit);
      res.setHeader('Cache-Control', 'no-store');
      res.json(
        images.map((image) => ({
          ...toImageResource(image),
          organization_id: image.organizationId,
          has_thumbnail: image.derived !== null,
          predictions: state.predictions
            .idsOfImage(image.id)
            .map((id) => state.predictions.get(id))
            .filter((p) => p !== undefined)
            .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
            .map((prediction) => ({
              ...toPredictionResource(prediction),
              shares: prediction.segmentationId
                ? state.shares
                    .idsOfSegmentation(prediction.segmentationId)
                    .map((id) => state.shares.get(id))
                    .filter((s) => s !== undefined)
                    .map((share) => toShareResource(share, config.shareBaseUrl))
                : [],
            })),
        })),
      );
    },

    mockImageThumbnail({ res, params }) {
      const image = state.images.get(params.image_id);
      if (!image) throw notFound('Image');
      if (!image.derived) throw notFound('Thumbnail');
      res.setHeader('Cache-Control', 'no-store');
      res.type('png');
      sendFileStream(createReadStream(image.derived.thumbnailPath), res);
    },

    mockListModels({ res, params }) {
      const org = state.organizations.get(params.organization_id);
      if (!org) throw notFound('Organization');
      res.setHeader('Cache-Control', 'no-store');
      res.json(
        state.models.listFor(org).map((model) => ({ ...toModelResource(model), engine: model.engine.kind })),
      );
    },
  };
}

function limitOf(raw: unknown): number | undefined {
  if (raw === undefined) return DEFAULT_LIMIT;
  const n = Number(raw);
  return typeof raw === 'string' && /^\d+$/.test(raw) && n >= 1 && n <= MAX_LIMIT ? n : undefined;
}
