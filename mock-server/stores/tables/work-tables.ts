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
import { column, first, marks, records, type Row, rows, run, type Works } from './work.js';

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
    yield* run(
      `INSERT INTO images (id, organization_id, name, size, shape, upload_status, upload_error, created_at,
         processed_at, metadata, folder_id, storage_key, multipart_upload_id, derived, conversion_attempts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, size = excluded.size, shape = excluded.shape,
         upload_status = excluded.upload_status, upload_error = excluded.upload_error,
         processed_at = excluded.processed_at, metadata = excluded.metadata, folder_id = excluded.folder_id,
         multipart_upload_id = excluded.multipart_upload_id, derived = excluded.derived,
         conversion_attempts = excluded.conversion_attempts`,
      image.id,
      image.organizationId,
      clientText(image.name),
      image.size,
      json(image.shape),
      image.uploadStatus,
      image.uploadError,
      image.createdAt,
      image.processedAt,
      JSON.stringify(image.metadata),
      image.folderId === null ? null : clientText(image.folderId),
      image.storageKey,
      image.multipartUploadId,
      json(image.derived),
      image.conversionAttempts,
    );
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
    yield* run(
      `INSERT INTO predictions (id, organization_id, image_id, model_id, status, created_at, started_at,
         finished_at, segmentation_id, cell_count, error, run_attempts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, started_at = excluded.started_at,
         finished_at = excluded.finished_at, segmentation_id = excluded.segmentation_id,
         cell_count = excluded.cell_count, error = excluded.error, run_attempts = excluded.run_attempts`,
      p.id,
      p.organizationId,
      p.imageId,
      p.modelId,
      p.status,
      p.createdAt,
      p.startedAt,
      p.finishedAt,
      p.segmentationId,
      p.cellCount,
      p.error,
      p.runAttempts,
    );
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
    yield* run(
      `INSERT INTO segmentations (id, organization_id, prediction_id, image_id, image_name, model_id, model_name,
         source, cell_count, roi_ids, has_preview, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET organization_id = excluded.organization_id,
         prediction_id = excluded.prediction_id, image_id = excluded.image_id, image_name = excluded.image_name,
         model_id = excluded.model_id, model_name = excluded.model_name, source = excluded.source,
         cell_count = excluded.cell_count, roi_ids = excluded.roi_ids, has_preview = excluded.has_preview,
         created_at = excluded.created_at`,
      s.id,
      s.organizationId,
      s.predictionId,
      s.imageId,
      clientText(s.imageName),
      s.modelId,
      clientText(s.modelName),
      s.source,
      s.cellCount,
      JSON.stringify(s.roiIds),
      // PostgreSQL's boolean takes '1' and '0' as true and false.
      s.hasPreview ? 1 : 0,
      s.createdAt,
    );
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
    yield* run(
      `INSERT INTO shares (id, organization_id, segmentation_id, token, view_count, last_viewed_at, created_at,
         revoked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET view_count = excluded.view_count,
         last_viewed_at = excluded.last_viewed_at, revoked_at = excluded.revoked_at`,
      share.id,
      share.organizationId,
      share.segmentationId,
      share.token,
      share.viewCount,
      share.lastViewedAt,
      share.createdAt,
      share.revokedAt,
    );
  },
  *delete(id) {
    yield* run('DELETE FROM shares WHERE id = ?', id);
  },
  idsOfSegmentation: (segmentationId) =>
    column('SELECT id FROM shares WHERE segmentation_id = ?', segmentationId),
  idsOf: (orgId) => column('SELECT id FROM shares WHERE organization_id = ?', orgId),
};
