/**
 * The tables of an organization's work in SQLite: images, predictions, segmentations and shares
 * (the StateStore port's tables, domain/state.ts; schema in database/migrations.ts).
 */
import type { ImageRecord, UploadStatus } from '../../domain/images/image-record.js';
import type {
  PredictionRecord,
  PredictionStatus,
  SegmentationRow,
} from '../../domain/predictions/prediction-record.js';
import type { ShareRecord } from '../../domain/shares/share-record.js';
import type { ImageTable, PredictionTable, SegmentationTable, ShareTable } from '../../domain/state.js';
import { clientText, fromClientText, type Row, type Statements } from './database/statements.js';
import type { Synchronous } from './transaction-gate.js';

export function imageTable(db: Statements): Synchronous<ImageTable> {
  const toImage = (r: Row): ImageRecord => ({
    id: r.id as string,
    organizationId: r.organization_id as string,
    name: fromClientText(r.name),
    imageType: 'TIFF',
    size: r.size as number,
    shape: r.shape === null ? null : (JSON.parse(r.shape as string) as number[]),
    uploadStatus: r.upload_status as UploadStatus,
    uploadError: r.upload_error as string | null,
    createdAt: r.created_at as string,
    processedAt: r.processed_at as string | null,
    metadata: JSON.parse(r.metadata as string) as Record<string, unknown>,
    folderId: r.folder_id === null ? null : fromClientText(r.folder_id),
    storageKey: r.storage_key as string,
    multipartUploadId: r.multipart_upload_id as string | null,
    derived: r.derived === null ? null : (JSON.parse(r.derived as string) as ImageRecord['derived']),
    conversionAttempts: r.conversion_attempts as number,
  });
  const upsertImage = `INSERT INTO images (id, organization_id, name, size, shape, upload_status, upload_error, created_at,
       processed_at, metadata, folder_id, storage_key, multipart_upload_id, derived, conversion_attempts)
     VALUES (@id, @organizationId, @name, @size, @shape, @uploadStatus, @uploadError, @createdAt,
       @processedAt, @metadata, @folderId, @storageKey, @multipartUploadId, @derived, @conversionAttempts)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, size = excluded.size, shape = excluded.shape,
       upload_status = excluded.upload_status, upload_error = excluded.upload_error,
       processed_at = excluded.processed_at, metadata = excluded.metadata, folder_id = excluded.folder_id,
       multipart_upload_id = excluded.multipart_upload_id, derived = excluded.derived,
       conversion_attempts = excluded.conversion_attempts`;
  return {
    get(id) {
      return db.records('SELECT * FROM images WHERE id = ?', toImage, id)[0];
    },
    put(image) {
      db.runNamed(upsertImage, {
        ...image,
        name: clientText(image.name),
        folderId: image.folderId === null ? null : clientText(image.folderId),
        shape: image.shape === null ? null : JSON.stringify(image.shape),
        metadata: JSON.stringify(image.metadata),
        derived: image.derived === null ? null : JSON.stringify(image.derived),
      });
    },
    delete(id) {
      db.prepare('DELETE FROM images WHERE id = ?').run(id);
    },
    countOf(orgId) {
      return db.column<number>('SELECT count(*) FROM images WHERE organization_id = ?', orgId)[0];
    },
    footprintOf(orgId) {
      const row = db.row(
        `SELECT coalesce(sum(size), 0) AS bytes,
                coalesce(sum(upload_status = 'uploading' AND multipart_upload_id IS NOT NULL), 0) AS open_uploads
         FROM images WHERE organization_id = ?`,
        orgId,
      )!;
      return { bytes: Number(row.bytes), openUploads: Number(row.open_uploads) };
    },
    idsOf(orgId) {
      return db.column('SELECT id FROM images WHERE organization_id = ?', orgId);
    },
    withStatus(status) {
      return (db.prepare('SELECT * FROM images WHERE upload_status = ?').all(status) as Row[]).map(toImage);
    },
    pageAfter(afterId, limit) {
      const page = db.prepare('SELECT * FROM images WHERE id > ? ORDER BY id LIMIT ?');
      return (page.all(afterId ?? '', limit) as Row[]).map(toImage);
    },
    multipartUploadIds() {
      return new Set(
        db.column('SELECT multipart_upload_id FROM images WHERE multipart_upload_id IS NOT NULL'),
      );
    },
    storageKeys() {
      return new Set(db.column('SELECT storage_key FROM images'));
    },
  };
}

export function predictionTable(db: Statements): Synchronous<PredictionTable> {
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
  const upsertPrediction = `INSERT INTO predictions (id, organization_id, image_id, model_id, status, created_at, started_at,
       finished_at, segmentation_id, cell_count, error, run_attempts)
     VALUES (@id, @organizationId, @imageId, @modelId, @status, @createdAt, @startedAt, @finishedAt,
       @segmentationId, @cellCount, @error, @runAttempts)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, started_at = excluded.started_at,
       finished_at = excluded.finished_at, segmentation_id = excluded.segmentation_id,
       cell_count = excluded.cell_count, error = excluded.error, run_attempts = excluded.run_attempts`;
  return {
    get(id) {
      return db.records('SELECT * FROM predictions WHERE id = ?', toPrediction, id)[0];
    },
    put(prediction) {
      db.runNamed(upsertPrediction, prediction);
    },
    delete(id) {
      db.prepare('DELETE FROM predictions WHERE id = ?').run(id);
    },
    inFlightFor(orgId, imageId, modelId) {
      const row = db
        .prepare(
          `SELECT * FROM predictions WHERE image_id = ? AND model_id = ? AND status IN ('SUBMITTED', 'STARTED')
           AND organization_id = ? LIMIT 1`,
        )
        .get(imageId, modelId, orgId) as Row | undefined;
      return row && toPrediction(row);
    },
    withStatus(...statuses) {
      const marks = statuses.map(() => '?').join(', ');
      return (
        db.prepare(`SELECT * FROM predictions WHERE status IN (${marks})`).all(...statuses) as Row[]
      ).map(toPrediction);
    },
    inFlightCountOf(orgId) {
      return db.column<number>(
        "SELECT count(*) FROM predictions WHERE organization_id = ? AND status IN ('SUBMITTED', 'STARTED')",
        orgId,
      )[0];
    },
    idsOfImage(imageId) {
      return db.column('SELECT id FROM predictions WHERE image_id = ?', imageId);
    },
    idsOf(orgId) {
      return db.column('SELECT id FROM predictions WHERE organization_id = ?', orgId);
    },
  };
}

export function segmentationTable(db: Statements): Synchronous<SegmentationTable> {
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
    hasPreview: r.has_preview === 1,
    createdAt: r.created_at as string,
  });
  return {
    get(id) {
      const row = db.row('SELECT * FROM segmentations WHERE id = ?', id);
      return row && toSegmentation(row);
    },
    put(s) {
      db.runNamed(
        `INSERT OR REPLACE INTO segmentations (id, organization_id, prediction_id, image_id, image_name,
           model_id, model_name, source, cell_count, roi_ids, has_preview, created_at)
         VALUES (@id, @organizationId, @predictionId, @imageId, @imageName, @modelId, @modelName, @source,
           @cellCount, @roiIds, @hasPreview, @createdAt)`,
        {
          ...s,
          imageName: clientText(s.imageName),
          modelName: clientText(s.modelName),
          roiIds: JSON.stringify(s.roiIds),
          hasPreview: s.hasPreview ? 1 : 0,
        },
      );
    },
    delete(id) {
      db.prepare('DELETE FROM segmentations WHERE id = ?').run(id);
    },
    idsOfImage(imageId) {
      return db.column('SELECT id FROM segmentations WHERE image_id = ?', imageId);
    },
    idsOf(orgId) {
      return db.column('SELECT id FROM segmentations WHERE organization_id = ?', orgId);
    },
    idsAfter(afterId, limit) {
      return db.column('SELECT id FROM segmentations WHERE id > ? ORDER BY id LIMIT ?', afterId ?? '', limit);
    },
  };
}

export function shareTable(db: Statements): Synchronous<ShareTable> {
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
  const one = (sql: string, ...args: unknown[]) => {
    const row = db.row(sql, ...args);
    return row && toShare(row);
  };
  return {
    get: (id) => one('SELECT * FROM shares WHERE id = ?', id),
    byToken: (token) => one('SELECT * FROM shares WHERE token = ?', token),
    liveFor: (segmentationId) =>
      one('SELECT * FROM shares WHERE segmentation_id = ? AND revoked_at IS NULL LIMIT 1', segmentationId),
    put(share) {
      db.runNamed(
        `INSERT INTO shares (id, organization_id, segmentation_id, token, view_count, last_viewed_at, created_at,
           revoked_at)
         VALUES (@id, @organizationId, @segmentationId, @token, @viewCount, @lastViewedAt, @createdAt, @revokedAt)
         ON CONFLICT (id) DO UPDATE SET view_count = excluded.view_count,
           last_viewed_at = excluded.last_viewed_at, revoked_at = excluded.revoked_at`,
        share,
      );
    },
    delete(id) {
      db.prepare('DELETE FROM shares WHERE id = ?').run(id);
    },
    idsOfSegmentation(segmentationId) {
      return db.column('SELECT id FROM shares WHERE segmentation_id = ?', segmentationId);
    },
    idsOf(orgId) {
      return db.column('SELECT id FROM shares WHERE organization_id = ?', orgId);
    },
  };
}
