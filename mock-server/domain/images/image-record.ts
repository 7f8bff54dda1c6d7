export type UploadStatus = 'uploading' | 'processing' | 'ready' | 'failed';

export interface ImageRecord {
  id: string;
  organizationId: string;
  name: string;
  imageType: 'TIFF';
  size: number;
  shape: number[] | null;
  uploadStatus: UploadStatus;
  uploadError: string | null;
  createdAt: string;
  processedAt: string | null;
  metadata: Record<string, unknown>;
  folderId: string | null;
  /** Object-store key of the original TIFF. Never exposed. */
  storageKey: string;
  /** Open resumable upload, while `uploading`. */
  multipartUploadId: string | null;
  /** Times a conversion of this image was started; one cut short by a stop is redone at most once. */
  conversionAttempts: number;
  /** Local files derived by conversion. */
  derived: { previewPath: string; thumbnailPath: string; width: number; height: number } | null;
}
