import type { ImageService } from '../../domain/images/image-service.js';
import type { ApiSchemas } from '../api-schemas.js';
import type { OperationHandler } from '../operation-context.js';
import { deleted } from '../render/acknowledgements.js';
import { toCreatedImage, toImageResource } from '../render/image.js';

export interface ImageUseCases {
  images: Pick<ImageService, 'openResumable' | 'createRecord' | 'get' | 'delete'>;
}

export function imageHandlers({ images }: ImageUseCases): Record<string, OperationHandler> {
  return {
    async createImage({ res, org, body }) {
      const fields = body as ApiSchemas['CreateImageRequest'];
      const input = {
        name: fields.name,
        size: fields.size,
        metadata: fields.metadata,
        folderId: fields.folder_id,
      };
      if (fields.resumable) {
        const { image, plan } = await images.openResumable(org, input);
        return void res.json(toCreatedImage(image, plan));
      }
      res.json(toCreatedImage(await images.createRecord(org, input), null));
    },

    async getImage({ res, org, params }) {
      res.json(toImageResource(await images.get(org, params.image_id)));
    },

    async deleteImage({ res, org, params }) {
      await images.delete(org, params.image_id);
      res.json(deleted());
    },
  };
}
