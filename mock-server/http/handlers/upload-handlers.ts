import type { ImageService } from '../../domain/images/image-service.js';
import { answerAfterDiscardingRest, type DiscardLimits } from '../discard-rest.js';
import { sendDetail } from '../error-responses.js';
import { isJsonMediaType, mediaType } from '../json-body.js';
import { receiveFile } from '../multipart-file.js';
import type { OperationContext, OperationHandler } from '../operation-context.js';
import { deleted, uploadAborted, uploadCompleted } from '../render/acknowledgements.js';
import { toImageResource, toUploadResponse } from '../render/image.js';
import { validationItem } from '../render/validation-item.js';

export interface UploadUseCases {
  images: Pick<ImageService, 'uploadFile' | 'openResumable' | 'complete' | 'abort' | 'get' | 'delete'>;
  settings: {
    maxUploadBytes: number;
    /** Where a single-request upload's file is received before the image service takes it. */
    incomingDir: string;
  };
}

export function uploadHandlers(
  { images, settings }: UploadUseCases,
  discardLimits: DiscardLimits,
): Record<string, OperationHandler> {
  async function uploadSingleRequest({ req, res, org }: OperationContext): Promise<void> {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > settings.maxUploadBytes + 64 * 1024) {
      const detail = `File too large: ${declared} bytes sent, the limit is ${settings.maxUploadBytes} bytes (4 GB).`;
      return answerAfterDiscardingRest(req, res, discardLimits, () => sendDetail(res, 413, detail));
    }
    const outcome = await images.uploadFile(org, async () => {
      const received = await receiveFile(req, settings.incomingDir, settings.maxUploadBytes);
      return 'status' in received ? { refused: received } : received;
    });
    if ('image' in outcome) return void res.json(toUploadResponse(outcome.image, null));
    const refused = outcome.refused;
    if (refused.status === 413 || refused.status === 507) res.setHeader('Connection', 'close');
    if (refused.status === 422) {
      const type = refused.field ? 'missing' : 'value_error';
      return sendDetail(res, 422, [validationItem(['body', refused.field ?? 'file'], refused.detail, type)]);
    }
    sendDetail(res, refused.status, refused.detail);
  }

  return {
    async uploadImage(ctx) {
      const type = mediaType(ctx.req);
      if (type === 'multipart/form-data') return uploadSingleRequest(ctx);
      if (!isJsonMediaType(type)) {
        const detail = `Unsupported Content-Type '${type || 'none'}': send multipart/form-data with a 'file' part, or application/json {name, size}.`;
        return answerAfterDiscardingRest(ctx.req, ctx.res, discardLimits, () =>
          sendDetail(ctx.res, 415, detail),
        );
      }
      const body = ctx.body as { name: string; size: number };
      const { image, plan } = await images.openResumable(ctx.org, { name: body.name, size: body.size });
      ctx.res.json(toUploadResponse(image, plan));
    },

    async completeUpload({ res, org, params, body }) {
      const parts = (body as { parts?: Array<{ part_number: number; etag: string }> } | undefined)?.parts;
      await images.complete(org, params.image_id, parts);
      res.status(202).json(uploadCompleted());
    },

    async abortUpload({ res, org, params }) {
      await images.abort(org, params.image_id);
      res.json(uploadAborted());
    },

    async getUpload({ res, org, params }) {
      res.json(toImageResource(await images.get(org, params.image_id)));
    },

    async deleteUpload({ res, org, params }) {
      await images.delete(org, params.image_id);
      res.json(deleted());
    },
  };
}
