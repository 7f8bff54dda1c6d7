import { randomUUID } from 'node:crypto';
import type { ImageRecord } from './image-record.js';

/** What a client says of an image it is about to upload. */
export interface NewImageFields {
  name: string;
  size: number;
  metadata?: Record<string, unknown>;
  folderId?: string | null;
}

/** The row of an image whose bytes are still to come, created at `createdAt` (the organization's clock). */
export function newImageRecord(
  organizationId: string,
  fields: NewImageFields,
  createdAt: string,
): ImageRecord {
  return {
    id: randomUUID(),
    organizationId,
    name: fields.name,
    imageType: 'TIFF',
    size: fields.size,
    shape: null,
    uploadStatus: 'uploading',
    uploadError: null,
    createdAt,
    processedAt: null,
    metadata: fields.metadata ?? {},
    folderId: fields.folderId ?? null,
    // Opaque, unrelated to the image or organization: with an S3 store the key appears in part URLs.
    storageKey: `objects/${randomUUID()}/original.tif`,
    multipartUploadId: null,
    derived: null,
    conversionAttempts: 0,
  };
}
