import type { Services } from '../../services.js';
import { answerAfterDiscardingRest, type DiscardLimits } from '../discard-rest.js';
import { sendDetail } from '../error-responses.js';
import { isJsonMediaType, mediaType } from '../json-body.js';
import { receiveFile } from '../multipart-file.js';
import type { OperationContext, OperationHandler } from '../operation-context.js';
import { toImageResource } from '../render/image.js';
import { toPlanResource } from '../render/upload-plan.js';

export function uploadHandlers(
  services: Services,
  discardLimits: DiscardLimits,
): Record<string, OperationHandler> {
  const { images, config } = services;

  async function uploadSingleRequest({ req, res, org }: OperationContext): Promise<void> {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > config.maxUploadBytes + 64 * 1024) {
      return answerAfterDiscardingRest(req, res, discardLimits, () =>
        sendDetail(
          res,
          413,
          `File too large: ${declared} bytes sent, the limit is ${config.maxUploadBytes} bytes (4 GB).`,
        ),
      );
    }
    const reservation = images.reserveSlot(org);
    try {
      const received = await receiveFile(req, services.paths.incoming, config.maxUploadBytes);
      if ('status' in received) {
        if (received.status === 413 || received.status === 507) res.setHeader('Connection', 'close');
        if (received.status === 422) {
          return sendDetail(res, 422, [
            {
              loc: ['body', received.field ?? 'file'],
              msg: received.detail,
              type: received.field ? 'missing' : 'value_error',
              input: null,
              ctx: {},
            },
          ]);
        }
        return sendDetail(res, received.status, received.detail);
      }
      const image = await images.createFromFile(org, reservation, received);
      res.json({ image: toImageResource(image), success: image.uploadStatus === 'ready', upload: null });
    } finally {
      reservation.release();
    }
  }

  return {
    async uploadImage(ctx) {
      const type = mediaType(ctx.req);
      if (type === 'multipart/form-data') return uploadSingleRequest(ctx);
      if (!isJsonMediaType(type)) {
        return answerAfterDiscardingRest(ctx.req, ctx.res, discardLimits, () =>
          sendDetail(
            ctx.res,
            415,
            `Unsupported Content-Type '${type || 'none'}': send multipart/form-data with a 'file' part, or application/json {name, size}.`,
          ),
        );
      }
      const body = ctx.body as { name: string; size: number };
      const { image, plan } = await images.openResumable(ctx.org, { name: body.name, size: body.size });
      ctx.res.json({ image: toImageResource(image), success: true, upload: toPlanResource(plan) });
    },

    async completeUpload({ res, org, params, body }) {
      const parts = (body as { parts?: Array<{ part_number: number; etag: string }> } | undefined)?.parts;
      await images.complete(org, params.image_id, parts);
      res.status(202).json({ status: 'processing' });
    },

    async abortUpload({ res, org, params }) {
      await images.abort(org, params.image_id);
      res.json({ status: 'aborted' });
    },

    getUpload({ res, org, params }) {
      res.json(toImageResource(images.get(org, params.image_id)));
    },

    async deleteUpload({ res, org, params }) {
      await images.delete(org, params.image_id);
      res.json({ success: true });
    },
  };
}
