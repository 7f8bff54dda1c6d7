/**
 * The tables of an organization's work, written once for both engines: images, predictions,
 * segmentations and shares (the StateStore port's tables, domain/state.ts; schema in migrations.ts).
 */
import type { ImageRecord, UploadStatus } from '../../domain/images/image-record.js';
import type {
  PredictionRecord,
  PredictionStatus,
  SegmentationRow,
} from '../../domain/predictions/prediction-record.js';
import type { ShareRecord } from '../../domain/shares/share-record.js';
import type { ImageTable, PredictionTable, SegmentationTable, ShareTable } from '../../domain/state.js';
import { clientText, fromClientText, fromJson, json } from './client-text.js';
import { column, first, marks, records, type Row, rows, run, type Works, upsert } from './work.js';

const toImage = (r: Row): ImageRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  name: fromClientText(r.name),
  imageType: 'TIFF',
  size: Number(r.size),
  shape: fromJson<number[]>(r.shape),
  uploadStatus: r.upload_status as UploadStatus,
  uploadError: r.upload_error as string | null,
  createdAt: r.created_at as string,
  processedAt: r.processed_at as string | null,
  metadata: JSON.parse(r.metadata as string) as Record<string, unknown>,
  folderId: r.folder_id === null ? null : fromClientText(r.folder_id),
  storageKey: r.storage_key as string,
  multipartUploadId: r.multipart_upload_id as string | null,
  derived: fromJson<ImageRecord['derived']>(r.derived),
  conversionAttempts: r.conversion_attempts as number,
});

/** A count or sum as a number: PostgreSQL answers its bigints as strings. */
const count = (values: unknown[]): number => Number(values[0] ?? 0);

export const imageTable: Works<ImageTable> = {
  get: (id) => first('SELECT * FROM images WHERE id = ?', toImage, id),
  *put(image) {
    const row = {
      id: image.id,
      organization_id: image.organizationId,
      name: clientText(image.name),
      size: image.size,
      shape: json(image.shape),
      upload_status: image.uploadStatus,
      upload_error: image.uploadError,
      created_at: image.createdAt,
      processed_at: image.processedAt,
      metadata: JSON.stringify(image.metadata),
      folder_id: image.folderId === null ? null : clientText(image.folderId),
      storage_key: image.storageKey,
      multipart_upload_id: image.multipartUploadId,
      derived: json(image.derived),
      conversion_attempts: image.conversionAttempts,
    };
    yield* upsert('images', ['id'], row, ['organization_id', 'created_at', 'storage_key']);
  },
  *delete(id) {
    yield* run('DELETE FROM images WHERE id = ?', id);
  },
  *countOf(orgId) {
    return count(yield* column('SELECT count(*) FROM images WHERE organization_id = ?', orgId));
  },
  *footprintOf(orgId) {
    const [row] = yield* rows(
      `SELECT coalesce(sum(size), 0) AS bytes,
              count(CASE WHEN upload_status = 'uploading' AND multipart_upload_id IS NOT NULL THEN 1 END)
                AS open_uploads
       FROM images WHERE organization_id = ?`,
      orgId,
    );
    return { bytes: Number(row.bytes), openUploads: Number(row.open_uploads) };
  },
  idsOf: (orgId) => column('SELECT id FROM images WHERE organization_id = ?', orgId),
  withStatus: (status) => records('SELECT * FROM images WHERE upload_status = ?', toImage, status),
  pageAfter: (afterId, limit) =>
    records('SELECT * FROM images WHERE id > ? ORDER BY id LIMIT ?', toImage, afterId ?? '', limit),
  *multipartUploadIds() {
    return new Set(
      yield* column('SELECT multipart_upload_id FROM images WHERE multipart_upload_id IS NOT NULL'),
    );
  },
  *storageKeys() {
    return new Set(yield* column('SELECT storage_key FROM images'));
  },
};

const toPrediction = (r: Row): PredictionRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  imageId: r.image_id as string,
  modelId: r.model_id as string,
  status: r.status as PredictionStatus,
  createdAt: r.created_at as string,
  startedAt: r.started_at as string | null,
  finishedAt: r.finished_at as string | null,
  segmentationId: r.segmentation_id as string | null,
  cellCount: r.cell_count as number | null,
  error: r.error as string | null,
  runAttempts: r.run_attempts as number,
});

export const predictionTable: Works<PredictionTable> = {
  get: (id) => first('SELECT * FROM predictions WHERE id = ?', toPrediction, id),
  *put(p) {
    const row = {
      id: p.id,
      organization_id: p.organizationId,
      image_id: p.imageId,
      model_id: p.modelId,
      status: p.status,
      created_at: p.createdAt,
      started_at: p.startedAt,
      finished_at: p.finishedAt,
      segmentation_id: p.segmentationId,
      cell_count: p.cellCount,
      error: p.error,
      run_attempts: p.runAttempts,
    };
    yield* upsert('predictions', ['id'], row, ['organization_id', 'image_id', 'model_id', 'created_at']);
  },
  *delete(id) {
    yield* run('DELETE FROM predictions WHERE id = ?', id);
  },
  inFlightFor: (orgId, imageId, modelId) =>
    first(
      `SELECT * FROM predictions WHERE image_id = ? AND model_id = ? AND status IN ('SUBMITTED', 'STARTED')
       AND organization_id = ? LIMIT 1`,
      toPrediction,
      imageId,
      modelId,
      orgId,
    ),
  withStatus: (...statuses) =>
    records(`SELECT * FROM predictions WHERE status IN (${marks(statuses)})`, toPrediction, ...statuses),
  *inFlightCountOf(orgId) {
    return count(
      yield* column(
        "SELECT count(*) FROM predictions WHERE organization_id = ? AND status IN ('SUBMITTED', 'STARTED')",
        orgId,
      ),
    );
  },
  idsOfImage: (imageId) => column('SELECT id FROM predictions WHERE image_id = ?', imageId),
  idsOf: (orgId) => column('SELECT id FROM predictions WHERE organization_id = ?', orgId),
};

const toSegmentation = (r: Row): SegmentationRow => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  predictionId: r.prediction_id as string,
  imageId: r.image_id as string,
  imageName: fromClientText(r.image_name),
  modelId: r.model_id as string,
  modelName: fromClientText(r.model_name),
  source: r.source as string,
  cellCount: r.cell_count as number,
  roiIds: JSON.parse(r.roi_ids as string) as string[],
  // SQLite's INTEGER 1, PostgreSQL's boolean true.
  hasPreview: r.has_preview === 1 || r.has_preview === true,
  createdAt: r.created_at as string,
});

export const segmentationTable: Works<SegmentationTable> = {
  get: (id) => first('SELECT * FROM segmentations WHERE id = ?', toSegmentation, id),
  *put(s) {
    yield* upsert('segmentations', ['id'], {
      id: s.id,
      organization_id: s.organizationId,
      prediction_id: s.predictionId,
      image_id: s.imageId,
      image_name: clientText(s.imageName),
      model_id: s.modelId,
      model_name: clientText(s.modelName),
      source: s.source,
      cell_count: s.cellCount,
      roi_ids: JSON.stringify(s.roiIds),
      // PostgreSQL's boolean takes '1' and '0' as true and false.
      has_preview: s.hasPreview ? 1 : 0,
      created_at: s.createdAt,
    });
  },
  *delete(id) {
    yield* run('DELETE FROM segmentations WHERE id = ?', id);
  },
  idsOfImage: (imageId) => column('SELECT id FROM segmentations WHERE image_id = ?', imageId),
  idsOf: (orgId) => column('SELECT id FROM segmentations WHERE organization_id = ?', orgId),
  idsAfter: (afterId, limit) =>
    column('SELECT id FROM segmentations WHERE id > ? ORDER BY id LIMIT ?', afterId ?? '', limit),
};

const toShare = (r: Row): ShareRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  segmentationId: r.segmentation_id as string,
  token: r.token as string,
  viewCount: r.view_count as number,
  lastViewedAt: r.last_viewed_at as string | null,
  createdAt: r.created_at as string,
  revokedAt: r.revoked_at as string | null,
});

export const shareTable: Works<ShareTable> = {
  get: (id) => first('SELECT * FROM shares WHERE id = ?', toShare, id),
  byToken: (token) => first('SELECT * FROM shares WHERE token = ?', toShare, token),
  liveFor: (segmentationId) =>
    first(
      'SELECT * FROM shares WHERE segmentation_id = ? AND revoked_at IS NULL LIMIT 1',
      toShare,
      segmentationId,
    ),
  *put(share) {
    const row = {
      id: share.id,
      organization_id: share.organizationId,
      segmentation_id: share.segmentationId,
      token: share.token,
      view_count: share.viewCount,
      last_viewed_at: share.lastViewedAt,
      created_at: share.createdAt,
      revoked_at: share.revokedAt,
    };
    yield* upsert('shares', ['id'], row, ['organization_id', 'segmentation_id', 'token', 'created_at']);
  },
  *delete(id) {
    yield* run('DELETE FROM shares WHERE id = ?', id);
  },
  idsOfSegmentation: (segmentationId) =>
    column('SELECT id FROM shares WHERE segmentation_id = ?', segmentationId),
  idsOf: (orgId) => column('SELECT id FROM shares WHERE organization_id = ?', orgId),
};
