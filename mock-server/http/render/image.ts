import type { ImageRecord } from '../../domain/images/image-record.js';
import type { UploadPlanView } from '../../domain/images/image-service.js';
import type { ApiSchemas } from '../api-schemas.js';
import { withoutServerPaths } from '../server-paths.js';

/** The interface's Image resource; its `upload_error` (a decoder's or the file system's words) names no server file. */
export function toImageResource(image: ImageRecord): ApiSchemas['Image'] {
  return {
    id: image.id,
    name: image.name,
    image_type: image.imageType,
    size: image.size,
    shape: image.shape,
    upload_status: image.uploadStatus,
    ...(image.uploadStatus === 'failed'
      ? { upload_error: withoutServerPaths(image.uploadError ?? 'upload failed') }
      : {}),
    created_at: image.createdAt,
    processed_at: image.processedAt,
  };
}

/**
 * An image record as `POST /image` answers it: the Image plus the fields the record was created
 * with, and the part URLs when it was opened as a resumable upload (null otherwise).
 */
export function toCreatedImage(image: ImageRecord, plan: UploadPlanView | null): ApiSchemas['CreatedImage'] {
  return {
    ...toImageResource(image),
    metadata: image.metadata as ApiSchemas['CreatedImage']['metadata'],
    folder_id: image.folderId,
    upload: plan ? toPlanResource(plan) : null,
  };
}

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

/** The UploadPlan of a resumable upload: part size, upload id and one presigned URL per part. */
function toPlanResource(plan: UploadPlanView): ApiSchemas['UploadPlan'] {
  return {
    part_size: plan.partSize,
    upload_id: plan.uploadId,
    urls: plan.urls.map((u) => ({ part_number: u.partNumber, url: u.url })),
  };
}
