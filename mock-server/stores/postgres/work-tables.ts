/**
 * The tables of an organization's work in PostgreSQL: images, predictions, segmentations and
 * shares (the StateStore port's tables, domain/state.ts; schema in migrations.ts). Mirrors
 * stores/work-tables.ts, SQLite's, column for column.
 */
import type { ImageRecord, UploadStatus } from '../../domain/images/image-record.js';
import type {
  PredictionRecord,
  PredictionStatus,
  SegmentationRow,
} from '../../domain/predictions/prediction-record.js';
import type { ShareRecord } from '../../domain/shares/share-record.js';
import type { ImageTable, PredictionTable, SegmentationTable, ShareTable } from '../../domain/state.js';
import { clientText, fromClientText } from './client-text.js';
import type { Row, Sql } from './connection.js';

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
const fromJson = <T>(stored: unknown): T | null =>
  stored === null ? null : (JSON.parse(stored as string) as T);

export function imageTable(sql: Sql): ImageTable {
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
  return {
    async get(id) {
      const row = await sql.row('SELECT * FROM images WHERE id = $1', [id]);
      return row && toImage(row);
    },
    async put(image) {
      await sql.rows(
        `INSERT INTO images (id, organization_id, name, size, shape, upload_status, upload_error, created_at,
           processed_at, metadata, folder_id, storage_key, multipart_upload_id, derived, conversion_attempts)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, size = excluded.size, shape = excluded.shape,
           upload_status = excluded.upload_status, upload_error = excluded.upload_error,
           processed_at = excluded.processed_at, metadata = excluded.metadata, folder_id = excluded.folder_id,
           multipart_upload_id = excluded.multipart_upload_id, derived = excluded.derived,
           conversion_attempts = excluded.conversion_attempts`,
        [
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
        ],
      );
    },
    async delete(id) {
      await sql.rows('DELETE FROM images WHERE id = $1', [id]);
    },
    async countOf(orgId) {
      const [count] = await sql.column<string>('SELECT count(*) FROM images WHERE organization_id = $1', [
        orgId,
      ]);
      return Number(count);
    },
    async footprintOf(orgId) {
      const row = await sql.row(
        `SELECT coalesce(sum(size), 0) AS bytes,
                count(*) FILTER (WHERE upload_status = 'uploading' AND multipart_upload_id IS NOT NULL) AS open_uploads
         FROM images WHERE organization_id = $1`,
        [orgId],
      );
      return { bytes: Number(row?.bytes ?? 0), openUploads: Number(row?.open_uploads ?? 0) };
    },
    idsOf: (orgId) => sql.column('SELECT id FROM images WHERE organization_id = $1', [orgId]),
    async withStatus(status) {
      return (await sql.rows('SELECT * FROM images WHERE upload_status = $1', [status])).map(toImage);
    },
    async pageAfter(afterId, limit) {
      return (
        await sql.rows('SELECT * FROM images WHERE id > $1 ORDER BY id LIMIT $2', [afterId ?? '', limit])
      ).map(toImage);
    },
    async multipartUploadIds() {
      return new Set(
        await sql.column('SELECT multipart_upload_id FROM images WHERE multipart_upload_id IS NOT NULL'),
      );
    },
    async storageKeys() {
      return new Set(await sql.column('SELECT storage_key FROM images'));
    },
  };
}

export function predictionTable(sql: Sql): PredictionTable {
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
  return {
    async get(id) {
      const row = await sql.row('SELECT * FROM predictions WHERE id = $1', [id]);
      return row && toPrediction(row);
    },
    async put(p) {
      await sql.rows(
        `INSERT INTO predictions (id, organization_id, image_id, model_id, status, created_at, started_at,
           finished_at, segmentation_id, cell_count, error, run_attempts)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, started_at = excluded.started_at,
           finished_at = excluded.finished_at, segmentation_id = excluded.segmentation_id,
           cell_count = excluded.cell_count, error = excluded.error, run_attempts = excluded.run_attempts`,
        [
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
        ],
      );
    },
    async delete(id) {
      await sql.rows('DELETE FROM predictions WHERE id = $1', [id]);
    },
    async inFlightFor(orgId, imageId, modelId) {
      const row = await sql.row(
        `SELECT * FROM predictions WHERE image_id = $1 AND model_id = $2 AND status IN ('SUBMITTED', 'STARTED')
         AND organization_id = $3 LIMIT 1`,
        [imageId, modelId, orgId],
      );
      return row && toPrediction(row);
    },
    async withStatus(...statuses) {
      return (await sql.rows('SELECT * FROM predictions WHERE status = ANY($1)', [statuses])).map(
        toPrediction,
      );
    },
    async inFlightCountOf(orgId) {
      const [count] = await sql.column<string>(
        "SELECT count(*) FROM predictions WHERE organization_id = $1 AND status IN ('SUBMITTED', 'STARTED')",
        [orgId],
      );
      return Number(count);
    },
    idsOfImage: (imageId) => sql.column('SELECT id FROM predictions WHERE image_id = $1', [imageId]),
    idsOf: (orgId) => sql.column('SELECT id FROM predictions WHERE organization_id = $1', [orgId]),
  };
}

export function segmentationTable(sql: Sql): SegmentationTable {
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
    hasPreview: r.has_preview as boolean,
    createdAt: r.created_at as string,
  });
  return {
    async get(id) {
      const row = await sql.row('SELECT * FROM segmentations WHERE id = $1', [id]);
      return row && toSegmentation(row);
    },
    async put(s) {
      await sql.rows(
        `INSERT INTO segmentations (id, organization_id, prediction_id, image_id, image_name, model_id, model_name,
           source, cell_count, roi_ids, has_preview, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (id) DO UPDATE SET organization_id = excluded.organization_id,
           prediction_id = excluded.prediction_id, image_id = excluded.image_id, image_name = excluded.image_name,
           model_id = excluded.model_id, model_name = excluded.model_name, source = excluded.source,
           cell_count = excluded.cell_count, roi_ids = excluded.roi_ids, has_preview = excluded.has_preview,
           created_at = excluded.created_at`,
        [
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
          s.hasPreview,
          s.createdAt,
        ],
      );
    },
    async delete(id) {
      await sql.rows('DELETE FROM segmentations WHERE id = $1', [id]);
    },
    idsOfImage: (imageId) => sql.column('SELECT id FROM segmentations WHERE image_id = $1', [imageId]),
    idsOf: (orgId) => sql.column('SELECT id FROM segmentations WHERE organization_id = $1', [orgId]),
    idsAfter: (afterId, limit) =>
      sql.column('SELECT id FROM segmentations WHERE id > $1 ORDER BY id LIMIT $2', [afterId ?? '', limit]),
  };
}

export function shareTable(sql: Sql): ShareTable {
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
  const one = async (text: string, param: string) => {
    const row = await sql.row(text, [param]);
    return row && toShare(row);
  };
  return {
    get: (id) => one('SELECT * FROM shares WHERE id = $1', id),
    byToken: (token) => one('SELECT * FROM shares WHERE token = $1', token),
    liveFor: (segmentationId) =>
      one('SELECT * FROM shares WHERE segmentation_id = $1 AND revoked_at IS NULL LIMIT 1', segmentationId),
    async put(share) {
      await sql.rows(
        `INSERT INTO shares (id, organization_id, segmentation_id, token, view_count, last_viewed_at, created_at,
           revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET view_count = excluded.view_count,
           last_viewed_at = excluded.last_viewed_at, revoked_at = excluded.revoked_at`,
        [
          share.id,
          share.organizationId,
          share.segmentationId,
          share.token,
          share.viewCount,
          share.lastViewedAt,
          share.createdAt,
          share.revokedAt,
        ],
      );
    },
    async delete(id) {
      await sql.rows('DELETE FROM shares WHERE id = $1', [id]);
    },
    idsOfSegmentation: (segmentationId) =>
      sql.column('SELECT id FROM shares WHERE segmentation_id = $1', [segmentationId]),
    idsOf: (orgId) => sql.column('SELECT id FROM shares WHERE organization_id = $1', [orgId]),
  };
}
