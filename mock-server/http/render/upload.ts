import type { ImageRecord } from '../../domain/images/image-record.js';
import type { UploadPlanView } from '../../domain/images/image-service.js';
import type { ApiSchemas } from '../api-schemas.js';
import { toImageResource } from './image.js';
import { toPlanResource } from './upload-plan.js';

/**
 * The answer of `POST /upload`: the image, whether it is ready, and the part URLs of a resumable
 * upload (null for a single-request one).
 */
export function toUploadResponse(
  image: ImageRecord,
  plan: UploadPlanView | null,
): ApiSchemas['UploadResponse'] {
  return {
    image: toImageResource(image),
    success: plan !== null || image.uploadStatus === 'ready',
    upload: plan ? toPlanResource(plan) : null,
  };
}
