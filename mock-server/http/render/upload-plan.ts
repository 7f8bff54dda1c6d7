import type { UploadPlanView } from '../../domain/images/image-service.js';
import type { ApiSchemas } from '../api-schemas.js';

/** The UploadPlan of a resumable upload: part size, upload id and one presigned URL per part. */
export function toPlanResource(plan: UploadPlanView): ApiSchemas['UploadPlan'] {
  return {
    part_size: plan.partSize,
    upload_id: plan.uploadId,
    urls: plan.urls.map((u) => ({ part_number: u.partNumber, url: u.url })),
  };
}
